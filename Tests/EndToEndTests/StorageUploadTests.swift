import Foundation
import Testing

/// `/storage/v1` uploads and downloads over real sockets and PostgreSQL, as the Supabase
/// clients send them (raw bytes, supabase-swift's and storage3's multipart bodies).
@Suite struct StorageUploadTests {
    @Test func rawUploadThenPublicAndSignedInDownloads() throws {
        let world = try StorageWorld()
        let upload = try world.upload("me.png", StorageWorld.png, token: world.rita)
        #expect(upload.status == 200)
        #expect(upload.json?["Key"] as? String == "avatars/me.png")
        let id = try #require(upload.json?["Id"] as? String)
        #expect(UUID(uuidString: id) != nil)

        // No apikey, no token: what an <img> does with the client's public URL.
        let served = try world.publicGet("me.png")
        #expect(served.status == 200)
        #expect(served.body == StorageWorld.png)
        #expect(served.header("Content-Type") == "image/png")
        let etag = "\"\(StorageWorld.sha256(StorageWorld.png))\""
        #expect(served.header("ETag") == etag)
        #expect(served.header("Cache-Control") == "public, max-age=60")
        #expect(served.header("X-Content-Type-Options") == "nosniff")
        let revalidated = try world.publicGet("me.png", headers: ["If-None-Match": "W/\"x\", \(etag)"])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
        #expect(revalidated.header("ETag") == etag)

        let signedIn = try world.call("GET", "/storage/v1/object/avatars/me.png", token: world.sam)
        #expect(signedIn.status == 200)
        #expect(signedIn.body == StorageWorld.png)
        #expect(signedIn.header("Cache-Control") == "private, max-age=60")
        let head = try world.app.request("HEAD", "/storage/v1/object/public/avatars/me.png")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(StorageWorld.png.count))
        #expect(head.body.isEmpty)
    }

    @Test(arguments: ["", "file"])
    func multipartUploadAsTheClientsSendIt(fieldName: String) throws {
        let world = try StorageWorld()
        let (body, contentType) = StorageWorld.multipart(StorageWorld.jpeg, fieldName: fieldName)
        let upload = try world.upload("folder/sub/pic.jpg", body, token: world.rita, headers: ["Content-Type": contentType])
        #expect(upload.status == 200)
        #expect(upload.json?["Key"] as? String == "avatars/folder/sub/pic.jpg")
        let served = try world.publicGet("folder/sub/pic.jpg")
        #expect(served.body == StorageWorld.jpeg)
        // The part's declared type (storage3's text/plain default) is not trusted: the bytes are.
        #expect(served.header("Content-Type") == "image/jpeg")
    }

    @Test func contentAddressedNamesAreImmutableAndMustMatchTheirBytes() throws {
        let world = try StorageWorld()
        let hash = StorageWorld.sha256(StorageWorld.png)
        #expect(try world.upload("\(hash).png", StorageWorld.png, token: world.rita).status == 200)
        let served = try world.publicGet("\(hash).png")
        #expect(served.header("Cache-Control") == "public, max-age=31536000, immutable")

        let mismatch = try world.upload(hash, StorageWorld.jpeg, token: world.rita)
        #expect(mismatch.status == 400)
        #expect(StorageWorld.storageError(mismatch) == ("400", "content_hash_mismatch"))
        #expect(try world.publicGet(hash).status == 404)
    }

    @Test func existingNameWithoutUpsertIsADuplicateAndUpsertOrPutOverwrites() throws {
        let world = try StorageWorld()
        let first = try world.upload("me.png", StorageWorld.png, token: world.rita)
        let id = try #require(first.json?["Id"] as? String)

        for headers in [["Content-Type": "image/jpeg"], ["Content-Type": "image/jpeg", "x-upsert": "false"]] {
            let duplicate = try world.upload("me.png", StorageWorld.jpeg, token: world.rita, headers: headers)
            #expect(duplicate.status == 400)
            #expect(StorageWorld.storageError(duplicate) == ("409", "Duplicate"))
        }
        #expect(try world.publicGet("me.png").body == StorageWorld.png)

        let upsert = try world.upload("me.png", StorageWorld.jpeg, token: world.rita, headers: ["x-upsert": "true"])
        #expect(upsert.status == 200)
        #expect(upsert.json?["Id"] as? String == id)  // the object keeps its id
        #expect(try world.publicGet("me.png").body == StorageWorld.jpeg)

        let put = try world.upload("me.png", StorageWorld.png, token: world.rita, method: "PUT")
        #expect(put.status == 200)
        #expect(try world.publicGet("me.png").body == StorageWorld.png)
        let missing = try world.upload("nobody.png", StorageWorld.png, token: world.rita, method: "PUT")
        #expect(missing.status == 404)
        #expect(StorageWorld.storageError(missing) == ("404", "not_found"))
        #expect(try world.upload("x.png", StorageWorld.png, token: world.rita, headers: ["x-upsert": "yes"]).status == 400)
    }

    @Test func twoNamesOfTheSameBytesStoreThemOnce() throws {
        let world = try StorageWorld()
        let before = try world.imageCount
        #expect(try world.upload("a.png", StorageWorld.png, token: world.rita).status == 200)
        #expect(try world.upload("b.png", StorageWorld.png, token: world.sam).status == 200)
        #expect(try world.objectCount == 2)
        #expect(try world.imageCount == before + 1)
    }

    /// Every refused upload answers in Storage's shape and stores nothing.
    @Test func refusedUploadsStoreNothing() throws {
        let world = try StorageWorld()
        let polyglot = StorageWorld.png + Array("<html><script>alert(1)</script></html>".utf8)
        let oversized = Array(StorageWorld.png.prefix(8)) + [UInt8](repeating: 0, count: 5 * 1024 * 1024)
        let (twoFiles, twoFilesType) = StorageWorld.multipart(StorageWorld.png)
        let doubled = Array(twoFiles.dropLast("--alamofire.boundary.0123abcd--\r\n".utf8.count))
            + Array("--alamofire.boundary.0123abcd\r\nContent-Disposition: form-data; name=\"\"; filename=\"b\"\r\n\r\nx\r\n".utf8)
            + Array("--alamofire.boundary.0123abcd--".utf8)
        let cases: [(String, [UInt8], [String: String], Int, String)] = [
            ("not an image", Array("<svg onload=alert(1)></svg>".utf8), ["Content-Type": "image/png"], 415, "unsupported_media_type"),
            ("polyglot", polyglot, ["Content-Type": "image/png"], 422, "invalid_image"),
            ("empty", [], ["Content-Type": "image/png"], 415, "unsupported_media_type"),
            ("over 5 MiB", oversized, ["Content-Type": "image/png"], 413, "body_too_large"),
            ("bad multipart", Array("--x\r\nno".utf8), ["Content-Type": "multipart/form-data; boundary=x"], 400, "invalid_multipart"),
            ("two files", doubled, ["Content-Type": twoFilesType], 400, "invalid_multipart"),
        ]
        for (label, body, headers, status, error) in cases {
            let response = try world.upload("refused.png", body, token: world.rita, headers: headers)
            #expect(response.status == status, "\(label)")
            #expect(StorageWorld.storageError(response) == (String(status), error), "\(label)")
            #expect(response.json?["message"] is String, "\(label)")
        }
        #expect(try world.objectCount == 0)
        #expect(try world.publicGet("refused.png").status == 404)
    }

    @Test func namesBucketsAndCredentialsAreChecked() throws {
        let world = try StorageWorld()
        let anonymous = try world.upload("me.png", StorageWorld.png, token: nil)
        #expect(anonymous.status == 401)
        #expect(StorageWorld.storageError(anonymous).statusCode == "401")
        let noKey = try world.call("POST", "/storage/v1/object/avatars/me.png", token: world.rita, body: StorageWorld.png, apikey: nil)
        #expect(StorageWorld.storageError(noKey) == ("401", "no_api_key"))
        let bucket = try world.call("POST", "/storage/v1/object/photos/me.png", token: world.rita, body: StorageWorld.png)
        #expect(bucket.status == 404)
        #expect(bucket.json?["message"] as? String == "Bucket not found")
        for name in ["a/../b.png", "a%20b.png", "a/./b.png", "1/2/3/4/5/6/7/8/9.png", "a//b.png", "a/", String(repeating: "n", count: 513)] {
            let response = try world.upload(name, StorageWorld.png, token: world.rita)
            #expect([400, 404].contains(response.status), "\(name)")
            #expect(StorageWorld.storageError(response).statusCode == String(response.status), "\(name)")
        }
        let missing = try world.publicGet("nothing.png")
        #expect(missing.status == 404)
        #expect(StorageWorld.storageError(missing) == ("404", "not_found"))
        #expect(try world.objectCount == 0)
    }
}
