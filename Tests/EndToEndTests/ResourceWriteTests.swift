import Foundation
import Testing

/// Write semantics of contract §5: idempotent create replays, id conflicts, PUT create-or-replace,
/// If-Match, soft and idempotent DELETE, deleted rows, and `claimed_by` through PATCH/PUT.
@Suite struct ResourceWriteTests {
    typealias Role = ResourceWorld.Role

    @Test(arguments: ["/v1/listings", "/v1/tasks", "/v1/activities"])
    func createReplayWithSameIDAndContentReturnsTheExistingRow(_ path: String) throws {
        let world = try ResourceWorld(extraRoles: [.owner, .stranger])
        let id = UUID().uuidString.lowercased()
        let body: [String: Any] = path == "/v1/listings" ? ["id": id, "address": "1 Main St", "price": 10.5]
            : ["id": id, "title": "Call", "due_date": "2026-12-01T09:00:00+01:00"]
        let first = try world.request("POST", path, as: .owner, json: body)
        #expect(first.status == 201)
        #expect(first.header("Location") == "\(path)/\(id)")
        let replay = try world.request("POST", path, as: .owner, json: body)
        #expect(replay.status == 200)
        #expect(replay.body == first.body)
        var changed = body
        changed[path == "/v1/listings" ? "address" : "title"] = "Something else"
        let conflict = try world.request("POST", path, as: .owner, json: changed)
        #expect(conflict.status == 409)
        #expect(conflict.json?["code"] as? String == "id_conflict")
        // Someone who cannot see the row learns nothing more than "in use".
        let foreign = try world.request("POST", path, as: .stranger, json: body)
        #expect(foreign.status == 409)
        #expect(foreign.json?["code"] as? String == "id_conflict")
        #expect(foreign.json?["message"] as? String == "This id is already in use.")
        #expect(try world.count("SELECT count(*) FROM status_changes WHERE entity_id = \(id)::uuid") == 1)
    }

    @Test func putCreatesAMissingRowThenReplacesItResettingLeftOutFields() throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        let id = UUID().uuidString.lowercased()
        let created = try world.request("PUT", "/v1/tasks/\(id)", as: .owner,
                                        json: ["title": "Call", "description": "Ask about the roof", "priority": "high"])
        #expect(created.status == 201)
        #expect(created.header("Location") == "/v1/tasks/\(id)")
        let replaced = try world.request("PUT", "/v1/tasks/\(id)", as: .owner, json: ["title": "Call back"])
        #expect(replaced.status == 200)
        #expect(replaced.json?["description"] is NSNull)
        #expect(replaced.json?["priority"] as? String == "medium")
        #expect(replaced.json?["version"] as? Int == 2)
        #expect(replaced.header("ETag") == "\"2\"")
        let missingTitle = try world.request("PUT", "/v1/tasks/\(id)", as: .owner, json: ["priority": "low"])
        #expect(missingTitle.status == 422)
        #expect(ResourceWorld.fields(in: missingTitle) == ["title"])
        let mismatch = try world.request("PUT", "/v1/tasks/\(id)", as: .owner, json: ["id": UUID().uuidString, "title": "x"])
        #expect(ResourceWorld.fields(in: mismatch) == ["id"])
    }

    @Test func patchChangesOnlySentFieldsAndNullClearsNullableOnes() throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        let created = try world.request("POST", "/v1/listings", as: .owner,
                                        json: ["address": "1 Main St", "city": "Halifax", "price": 100, "mls_number": "M1"])
        let id = try #require(created.json?["id"] as? String)
        let patched = try world.request("PATCH", "/v1/listings/\(id)", as: .owner, json: ["price": NSNull(), "country": "CA"])
        #expect(patched.status == 200)
        #expect(patched.json?["price"] is NSNull)
        #expect(patched.json?["city"] as? String == "Halifax")
        #expect(patched.json?["mls_number"] as? String == "M1")
        #expect(patched.json?["country"] as? String == "CA")
    }

    @Test(arguments: ["PATCH", "PUT", "DELETE"])
    func writeWithStaleIfMatchAnswers412WithTheCurrentVersion(_ method: String) throws {
        let world = try ResourceWorld()
        let scene = try world.scene()
        let path = "/v1/tasks/\(scene.task)"
        let body: [String: Any]? = method == "DELETE" ? nil : ["title": "Changed", "listing_id": scene.listing]
        let stale = try world.request(method, path, as: .declarer, json: body, headers: ["If-Match": "\"7\""])
        #expect(stale.status == 412)
        #expect(stale.json?["code"] as? String == "precondition_failed")
        #expect((stale.json?["details"] as? [String: Any])?["version"] as? Int == 1)
        let current = try world.request(method, path, as: .declarer, json: body, headers: ["If-Match": "\"1\""])
        #expect(current.status == 200)
        #expect(current.header("ETag") == "\"2\"")
        let missing = try world.request(method, "/v1/tasks/\(UUID().uuidString)", as: .declarer, json: body,
                                        headers: ["If-Match": "*"])
        #expect(missing.status == (method == "PUT" ? 412 : 404))
    }

    @Test func deleteIsSoftIdempotentAndLeavesTheRowReadOnlyUntilRestored() throws {
        let world = try ResourceWorld()
        let scene = try world.scene()
        let path = "/v1/activities/\(scene.activity)"
        let deleted = try world.request("DELETE", path, as: .declarer)
        #expect(deleted.status == 200)
        #expect(deleted.json?["status"] as? String == "deleted")
        #expect(deleted.json?["deleted_at"] is String)
        let again = try world.request("DELETE", path, as: .declarer)
        #expect(again.status == 200)
        #expect(again.json?["version"] as? Int == 2)
        #expect(try world.request("GET", path, as: .declarer).json?["status"] as? String == "deleted")
        let patch = try world.request("PATCH", path, as: .declarer, json: ["title": "Call the seller"])
        #expect(patch.status == 409)
        #expect(patch.json?["code"] as? String == "row_deleted")
        let list = try world.request("GET", "/v1/activities", as: .declarer)
        #expect(!ResourceWorld.ids(in: list).contains(scene.activity))
        let withDeleted = try world.request("GET", "/v1/activities?include_deleted=true", as: .declarer)
        #expect(ResourceWorld.ids(in: withDeleted).contains(scene.activity))
        // A restore names a live status and takes the delete's permission (the claimer: 403).
        #expect(try world.request("PATCH", path, as: .claimer, json: ["status": "open"]).status == 403)
        let restored = try world.request("PATCH", path, as: .declarer, json: ["status": "open"])
        #expect(restored.status == 200)
        #expect(restored.json?["deleted_at"] is NSNull && restored.json?["status"] as? String == "open")
    }

    @Test func claimedByIsIgnoredWhenUnchangedAndRefusedWhenChanged() throws {
        let world = try ResourceWorld()
        let scene = try world.scene()
        let path = "/v1/tasks/\(scene.task)"
        let same = try world.request("PATCH", path, as: .declarer, json: ["title": "A", "claimed_by": world.id(.claimer)])
        #expect(same.status == 200)
        let other = try world.request("PATCH", path, as: .declarer, json: ["claimed_by": world.id(.declarer)])
        #expect(other.status == 422)
        #expect(ResourceWorld.fields(in: other) == ["claimed_by"])
        let cleared = try world.request("PUT", path, as: .declarer, json: ["title": "A", "claimed_by": NSNull()])
        #expect(cleared.status == 422)
        #expect(try world.request("GET", path, as: .declarer).json?["claimed_by"] as? String == world.id(.claimer))
    }

    @Test func listingReassignmentNeedsTheOwnerAndAnActiveUser() throws {
        let world = try ResourceWorld()
        let scene = try world.scene()
        let path = "/v1/listings/\(scene.listing)"
        let byStaff = try world.request("PATCH", path, as: .staff, json: ["assigned_staff": world.id(.stranger)])
        #expect(byStaff.status == 403)
        let staffOwnsIt = try world.request("PATCH", path, as: .staff, json: ["owned_by": world.id(.staff)])
        #expect(staffOwnsIt.status == 403)
        let unknown = try world.request("PATCH", path, as: .owner, json: ["assigned_staff": UUID().uuidString])
        #expect(unknown.status == 422)
        #expect(ResourceWorld.fields(in: unknown) == ["assigned_staff"])
        let byOwner = try world.request("PATCH", path, as: .owner, json: ["assigned_staff": world.id(.stranger)])
        #expect(byOwner.status == 200)
        #expect(try world.request("GET", path, as: .stranger).status == 200)
        #expect(try world.request("GET", path, as: .staff).status == 404)
        let foreignOwner = try world.request("POST", "/v1/listings", as: .owner, json: ["address": "x", "owned_by": world.id(.staff)])
        #expect(foreignOwner.status == 403)
        let adminSets = try world.request("POST", "/v1/listings", as: .admin, json: ["address": "x", "owned_by": world.id(.staff)])
        #expect(adminSets.status == 201)
        #expect(adminSets.json?["owned_by"] as? String == world.id(.staff))
    }

    @Test func unknownAndMalformedIDsAnswer404And400() throws {
        let world = try ResourceWorld(extraRoles: [])
        for path in ["/v1/listings", "/v1/tasks", "/v1/activities"] {
            #expect(try world.request("GET", "\(path)/\(UUID().uuidString)", as: .admin).status == 404)
            #expect(try world.request("PATCH", "\(path)/\(UUID().uuidString)", as: .admin, json: ["title": "x"]).status != 200)
            #expect(try world.request("DELETE", "\(path)/\(UUID().uuidString)", as: .admin).status == 404)
            let malformed = try world.request("GET", "\(path)/nope", as: .admin)
            #expect(malformed.status == 400)
            #expect(malformed.json?["code"] as? String == "invalid_uuid")
        }
    }
}
