import Foundation
import Testing

/// Who may overwrite and delete Storage objects: the owner (uploader) and admins; a refused
/// attempt changes nothing. And `users.avatar_hash` must name a stored image.
@Suite struct StorageAccessTests {
    @Test func aStrangerCannotOverwriteOrDeleteAndNothingChanges() throws {
        let world = try StorageWorld()
        let created = try world.upload("rita.png", StorageWorld.png, token: world.rita)
        let id = try #require(created.json?["Id"] as? String)
        let attempts = [
            try world.upload("rita.png", StorageWorld.jpeg, token: world.sam, headers: ["x-upsert": "true"]),
            try world.upload("rita.png", StorageWorld.jpeg, token: world.sam, method: "PUT"),
            try world.call("DELETE", "/storage/v1/object/avatars/rita.png", token: world.sam),
        ]
        for response in attempts {
            #expect(response.status == 403)
            #expect(StorageWorld.storageError(response) == ("403", "forbidden"))
        }
        #expect(try world.publicGet("rita.png").body == StorageWorld.png)
        let row = try #require(try world.app.database.pool.query(
            "SELECT id::text AS id, hash, updated_at = created_at AS untouched FROM storage_objects").first)
        #expect(try row.decode("id") as String == id)
        #expect(try row.decode("hash") as String == StorageWorld.sha256(StorageWorld.png))
        #expect(try row.decode("untouched") as Bool)
    }

    @Test func theOwnerAndAnAdminMayOverwriteAndDelete() throws {
        let world = try StorageWorld()
        #expect(try world.upload("rita.png", StorageWorld.png, token: world.rita).status == 200)
        #expect(try world.upload("rita.png", StorageWorld.jpeg, token: world.admin, method: "PUT").status == 200)
        #expect(try world.publicGet("rita.png").body == StorageWorld.jpeg)
        #expect(try world.upload("rita.png", StorageWorld.png, token: world.rita, headers: ["x-upsert": "true"]).status == 200)

        let deleted = try world.call("DELETE", "/storage/v1/object/avatars/rita.png", token: world.rita)
        #expect(deleted.status == 200)
        #expect(try world.publicGet("rita.png").status == 404)
        #expect(try world.call("DELETE", "/storage/v1/object/avatars/rita.png", token: world.rita).status == 404)

        #expect(try world.upload("sam.png", StorageWorld.png, token: world.sam).status == 200)
        #expect(try world.call("DELETE", "/storage/v1/object/avatars/sam.png", token: world.admin).status == 200)
        #expect(try world.objectCount == 0)
    }

    /// storage3's and supabase-swift's `remove(paths)`: `DELETE /object/<bucket>` with
    /// `{"prefixes": [...]}`; all or nothing, names that do not exist skipped.
    @Test func bulkRemoveIsAllOrNothing() throws {
        let world = try StorageWorld()
        #expect(try world.upload("r1.png", StorageWorld.png, token: world.rita).status == 200)
        #expect(try world.upload("f/r2.jpg", StorageWorld.jpeg, token: world.rita).status == 200)
        #expect(try world.upload("s1.png", StorageWorld.png, token: world.sam).status == 200)
        func remove(_ names: [String], _ token: String) throws -> TestHTTPClient.Response {
            try world.call("DELETE", "/storage/v1/object/avatars", token: token,
                           body: Array(try JSONSerialization.data(withJSONObject: ["prefixes": names])),
                           headers: ["Content-Type": "application/json"])
        }
        let mixed = try remove(["r1.png", "s1.png"], world.rita)
        #expect(mixed.status == 403)
        #expect(try world.objectCount == 3)

        let own = try remove(["r1.png", "f/r2.jpg", "missing.png"], world.rita)
        #expect(own.status == 200)
        let removed = try #require(try JSONSerialization.jsonObject(with: Data(own.body)) as? [[String: Any]])
        #expect(removed.compactMap { $0["name"] as? String } == ["f/r2.jpg", "r1.png"])
        #expect(removed.first?["bucket_id"] as? String == "avatars")
        #expect(try world.objectCount == 1)

        #expect(try remove([], world.rita).status == 400)
        #expect(try remove(["../x"], world.rita).status == 400)
    }

    @Test func avatarHashMustNameAStoredImageOnEveryV1Route() throws {
        let world = try StorageWorld()
        let hash = StorageWorld.sha256(StorageWorld.png)
        // Before any upload the hash names nothing.
        let early = try world.app.request("PATCH", "/v1/me", token: world.rita, json: ["avatar_hash": hash])
        #expect(early.status == 422)
        #expect(early.json?["code"] as? String == "unknown_avatar")
        let details = early.json?["details"] as? [[String: Any]]
        #expect(details?.first?["field"] as? String == "avatar_hash")

        // An upload does not change avatar_hash by itself.
        #expect(try world.upload("me.png", StorageWorld.png, token: world.rita).status == 200)
        #expect(try world.app.request("GET", "/v1/me", token: world.rita).json?["avatar_hash"] is NSNull)

        let set = try world.app.request("PATCH", "/v1/me", token: world.rita, json: ["avatar_hash": hash.uppercased()])
        #expect(set.status == 200)
        #expect(set.json?["avatar_hash"] as? String == hash)
        let bad = try world.app.request("PATCH", "/v1/me", token: world.rita, json: ["avatar_hash": "abc"])
        #expect(bad.status == 422)
        #expect(bad.json?["code"] as? String == "validation_failed")
        let cleared = try world.app.request("PATCH", "/v1/me", token: world.rita, json: ["avatar_hash": NSNull()])
        #expect(cleared.json?["avatar_hash"] is NSNull)

        let ritaID = try #require(set.json?["id"] as? String)
        let unknown = String(repeating: "ab", count: 32)
        let adminUnknown = try world.app.request("PATCH", "/v1/users/\(ritaID)", token: world.admin, json: ["avatar_hash": unknown])
        #expect(adminUnknown.status == 422)
        #expect(adminUnknown.json?["code"] as? String == "unknown_avatar")
        let adminSet = try world.app.request("PATCH", "/v1/users/\(ritaID)", token: world.admin, json: ["avatar_hash": hash])
        #expect(adminSet.json?["avatar_hash"] as? String == hash)
        // A refused change left the row as it was.
        let failed = try world.app.request("PATCH", "/v1/me", token: world.rita, json: ["name": "New", "avatar_hash": unknown])
        #expect(failed.status == 422)
        let me = try world.app.request("GET", "/v1/me", token: world.rita).json
        #expect(me?["avatar_hash"] as? String == hash)
        #expect(me?["name"] as? String == "Rita Realtor")
    }
}
