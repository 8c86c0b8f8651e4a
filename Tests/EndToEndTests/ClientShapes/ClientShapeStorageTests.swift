import Foundation
import Testing

/// `/storage/v1` answers over HTTP decoded as supabase-swift 2.55.1's Storage client decodes
/// them (`StorageMirrors`, `JSONDecoder.supabase()`): the upload answer from POST and PUT, the
/// `[FileObject]` of `remove(paths:)`, downloads as bytes, and each refusal as `StorageError`.
@Suite struct ClientShapeStorageTests {
    static let decoder = SupabaseSwiftDecoding.supabase()

    static func decode<T: Decodable>(_ type: T.Type, _ response: TestHTTPClient.Response, _ label: String) throws -> T {
        try SupabaseSwiftDecoding.decode(type, response, label, with: decoder)
    }

    @Test func uploadsRemovalsAndRefusalsDecodeAsTheClientDecodesThem() throws {
        let world = try StorageWorld()
        let form = StorageWorld.multipart(StorageWorld.png)
        let multipart = ["Content-Type": form.contentType, "x-upsert": "false"]
        let uploaded = try Self.decode(StorageMirrors.UploadResponse.self,
                                       try world.call("POST", "/storage/v1/object/avatars/rita/a.png", token: world.rita, body: form.body,
                                                      headers: multipart), "upload")
        #expect(uploaded.Key == "avatars/rita/a.png" && UUID(uuidString: uploaded.Id) != nil)
        let updated = try Self.decode(StorageMirrors.UploadResponse.self,
                                      try world.call("PUT", "/storage/v1/object/avatars/rita/a.png", token: world.rita, body: form.body,
                                                     headers: ["Content-Type": form.contentType]), "update")
        #expect(updated.Key == uploaded.Key)
        #expect(try world.call("GET", "/storage/v1/object/avatars/rita/a.png", token: world.rita).body == StorageWorld.png)
        #expect(try world.publicGet("rita/a.png").body == StorageWorld.png)

        let refusals: [(String, TestHTTPClient.Response, String, String)] = [
            ("duplicate", try world.call("POST", "/storage/v1/object/avatars/rita/a.png", token: world.rita, body: form.body,
                                         headers: multipart), "409", "Duplicate"),
            ("not an image", try world.upload("rita/b.png", Array("text".utf8), token: world.rita), "415", "unsupported_media_type"),
            ("missing", try world.call("GET", "/storage/v1/object/avatars/rita/none.png", token: world.rita), "404", "not_found"),
            ("name", try world.upload("a/../b.png", StorageWorld.png, token: world.rita), "400", "invalid_object_name"),
            ("not the owner", try world.call("DELETE", "/storage/v1/object/avatars/rita/a.png", token: world.sam), "403", "forbidden"),
            ("anonymous", try world.upload("rita/c.png", StorageWorld.png, token: nil), "401", "unauthorized"),
            ("bad key", try world.call("GET", "/storage/v1/object/avatars/rita/a.png", token: world.rita, apikey: "sb_publishable_wrong"),
             "401", "invalid_api_key"),
        ]
        for (label, response, statusCode, name) in refusals {
            let error = try Self.decode(StorageMirrors.StorageError.self, response, label)
            #expect(error.statusCode == statusCode && error.error == name, "\(label): \(response.status) \(error)")
        }

        // The single-object delete (not one supabase-swift calls; Storage answers it so).
        _ = try world.upload("rita/d.png", StorageWorld.png, token: world.rita)
        let single = try Self.decode([String: String].self, try world.call("DELETE", "/storage/v1/object/avatars/rita/d.png", token: world.rita),
                                     "delete one")
        #expect(single == ["message": "Successfully deleted"])
        let removed = try Self.decode([StorageMirrors.FileObject].self,
                                      try world.call("DELETE", "/storage/v1/object/avatars", token: world.rita,
                                                     body: Array(#"{"prefixes":["rita/a.png"]}"#.utf8),
                                                     headers: ["Content-Type": "application/json"]), "remove")
        #expect(removed.map(\.name) == ["rita/a.png"] && removed.first?.id != nil && removed.first?.createdAt != nil)
    }
}
