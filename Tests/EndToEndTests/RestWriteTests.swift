import Foundation
import Postgres
import Testing

/// `/rest/v1` inserts, upserts, updates and deletes: the same store operations as `/v1` (the
/// caller is `declared_by`, server-managed keys are ignored, history rows are written), one
/// transaction per request, PostgREST's answers.
@Suite struct RestWriteTests {
    @Test func insertAnswers201EmptyByDefaultAndTheRowsWithRepresentation() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .stranger])
        let owner = rest.world.id(.owner)
        let minimal = try rest.send("POST", "tasks", as: .owner, body: ["title": "Call the buyer"])
        #expect(minimal.status == 201 && minimal.body.isEmpty, "\(RestWriteWorld.body(minimal))")
        let id = UUID().uuidString  // upper case, as Swift sends it
        let represented = try rest.send("POST", "tasks?select=id,title,declared_by", as: .owner,
                                        body: [["id": id, "title": "Stage", "declared_by": rest.world.id(.stranger),
                                                "version": 99, "created_at": "2020-01-01T00:00:00"]],
                                        prefer: ["return=representation"])
        #expect(represented.status == 201)
        let rows = RestWriteWorld.array(represented)
        #expect(rows.count == 1 && rows.first?.keys.sorted() == ["declared_by", "id", "title"])
        // The client's id is honoured; declared_by is the caller whatever the body says.
        #expect(rows.first?["id"] as? String == id.lowercased())
        #expect(rows.first?["declared_by"] as? String == owner)
        #expect(try rest.count("SELECT version FROM tasks WHERE id = \(id.lowercased())::uuid") == 1)
        #expect(try rest.count("SELECT count(*)::int FROM status_changes WHERE entity_id = \(id.lowercased())::uuid") == 1)
    }

    @Test func insertSelectSingleAnswersABareObject() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        // supabase-swift's insert(x).select().single(): select=%2A, representation, object Accept.
        let response = try rest.send("POST", "listings?select=%2A", as: .owner, body: ["address": "1 Main St"],
                                     prefer: ["return=representation"],
                                     headers: ["Accept": "application/vnd.pgrst.object+json"])
        #expect(response.status == 201)
        #expect(response.json?["address"] as? String == "1 Main St")
        #expect(response.json?["owned_by"] as? String == rest.world.id(.owner))
    }

    @Test func anArrayInsertWithColumnsReadsOnlyTheListedKeys() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let response = try rest.send("POST", "tasks?columns=%22title%22,%22priority%22", as: .owner,
                                     body: [["title": "A", "priority": "high", "description": "dropped"],
                                            ["title": "B", "priority": "low"]],
                                     prefer: ["return=representation"])
        let rows = RestWriteWorld.array(response)
        #expect(response.status == 201 && rows.count == 2, "\(RestWriteWorld.body(response))")
        #expect(rows.map { $0["title"] as? String } == ["A", "B"])
        #expect(rows.first?["description"] is NSNull)
        // A Swift body date (no zone) is UTC.
        let dated = try rest.send("POST", "tasks", as: .owner, body: ["title": "Due", "due_date": "2024-06-15T18:12:04.123"],
                                  prefer: ["return=representation"])
        #expect(RestWriteWorld.array(dated).first?["due_date"] as? String == "2024-06-15T18:12:04.123Z", "\(RestWriteWorld.body(dated))")
    }

    @Test(arguments: [
        ("tasks?on_conflict=title", #"{"title":"x"}"#, 400, "42P10"),
        ("tasks", #"{"title":"x","nope":1}"#, 400, "PGRST204"),
        ("tasks?columns=nope", #"{"title":"x"}"#, 400, "PGRST204"),
        ("tasks", #"{"title":7}"#, 422, "validation_failed"),
        ("tasks", #"[1]"#, 400, "PGRST102"),
        ("claim_events", #"{"entity_type":"task"}"#, 403, "42501"),
        ("status_changes", #"{"entity_type":"task"}"#, 403, "42501"),
        ("users", #"{"name":"x","email":"x@example.com"}"#, 403, "42501"),
        ("nope", #"{"x":1}"#, 404, "PGRST205"),
    ] as [(String, String, Int, String)])
    func badOrForbiddenInsertsAnswerPostgRESTErrors(_ path: String, _ body: String, _ status: Int, _ code: String) throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let response = try rest.send("POST", path, as: .owner,
                                     body: try JSONSerialization.jsonObject(with: Data(body.utf8)))
        #expect(response.status == status, "\(path): \(RestWriteWorld.body(response))")
        #expect(response.json?["code"] as? String == code, "\(path)")
        // PostgREST's four keys, details a string or null (field errors add an `errors` key).
        let keys = Set(response.json.map { Array($0.keys) } ?? [])
        #expect(keys.isSuperset(of: ["code", "details", "hint", "message"]))
        #expect(response.json?["details"] is String || response.json?["details"] is NSNull, "\(path)")
    }

    @Test func anonymousWritesAre401() throws {
        let rest = try RestWriteWorld(extraRoles: [])
        for method in ["POST", "PATCH", "DELETE"] {
            let response = try rest.send(method, "tasks?id=eq.\(UUID())", as: nil, body: ["title": "x"],
                                         headers: ["Authorization": "Bearer \(AuthTestServer.publishableKey)"])
            #expect(response.status == 401, "\(method)")
        }
        #expect(try rest.count("SELECT count(*)::int FROM tasks") == 0)
    }

    @Test func aMergeUpsertTouchesOnlyTheKeysSentAndItsReplayChangesNothing() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let id = UUID().uuidString.lowercased()
        let prefer = ["return=representation,resolution=merge-duplicates", "missing=default"]
        let first = try rest.send("POST", "tasks", as: .owner,
                                  body: ["id": id, "title": "Call", "description": "keep me", "status": "in_progress"],
                                  prefer: prefer)
        #expect(first.status == 201, "\(RestWriteWorld.body(first))")
        // A merge without description keeps it; the status change is stamped and recorded once.
        let body: [String: Any] = ["id": id, "title": "Call back", "status": "completed"]
        for _ in 0..<3 {
            let response = try rest.send("POST", "tasks?on_conflict=id", as: .owner, body: body, prefer: prefer)
            #expect(response.status == 201, "\(RestWriteWorld.body(response))")
            #expect(RestWriteWorld.array(response).first?["description"] as? String == "keep me")
        }
        #expect(try rest.count("SELECT version FROM tasks WHERE id = \(id)::uuid") == 2)
        #expect(try rest.count("SELECT count(*)::int FROM status_changes WHERE entity_id = \(id)::uuid") == 2)
        #expect(try rest.text("SELECT completed_at::text FROM tasks WHERE id = \(id)::uuid") != nil)
    }

    @Test func ignoreDuplicatesLeavesAnExistingRowAloneAndOutOfTheAnswer() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let id = UUID().uuidString.lowercased()
        _ = try rest.send("POST", "tasks", as: .owner, body: ["id": id, "title": "Original"])
        let response = try rest.send("POST", "tasks", as: .owner,
                                     body: [["id": id, "title": "Changed"], ["title": "New"]],
                                     prefer: ["return=representation", "resolution=ignore-duplicates"])
        #expect(response.status == 201)
        #expect(RestWriteWorld.array(response).map { $0["title"] as? String } == ["New"])
        #expect(try rest.text("SELECT title FROM tasks WHERE id = \(id)::uuid") == "Original")
    }

    @Test func patchAndDeleteWithoutAFilterAreRefused() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer])
        let scene = try rest.world.scene(claimed: false)
        for method in ["PATCH", "DELETE"] {
            let response = try rest.send(method, "tasks", as: .owner, body: method == "PATCH" ? ["title": "x"] : nil)
            #expect(response.status == 400 && response.json?["code"] as? String == "21000", "\(method)")
        }
        #expect(try rest.text("SELECT status FROM tasks WHERE id = \(scene.task)::uuid") == "open")
    }

    @Test func patchChangesTheVisibleMatchingRowsAndDeleteIsTheSoftDelete() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer, .claimer, .stranger])
        let scene = try rest.world.scene(claimed: false)
        let patched = try rest.send("PATCH", "tasks?id=eq.\(scene.task.uppercased())", as: .staff,
                                    body: ["priority": "urgent"], prefer: ["return=representation"])
        #expect(patched.status == 200 && RestWriteWorld.array(patched).first?["priority"] as? String == "urgent")
        // Nothing matched (an outsider sees nothing): 200 with an empty array, nothing changed.
        let outsider = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .stranger, body: ["priority": "low"],
                                     prefer: ["return=representation"])
        #expect(outsider.status == 200 && RestWriteWorld.array(outsider).isEmpty)
        let deleted = try rest.send("DELETE", "tasks?id=eq.\(scene.task)", as: .stranger)
        #expect(deleted.status == 204)
        #expect(try rest.text("SELECT priority || '/' || status FROM tasks WHERE id = \(scene.task)::uuid") == "urgent/open")
        // The declarer deletes: a tombstone (status deleted, deleted_at) and a history row.
        let minimal = try rest.send("DELETE", "tasks?id=eq.\(scene.task)", as: .declarer)
        #expect(minimal.status == 204 && minimal.body.isEmpty)
        #expect(try rest.text("SELECT status FROM tasks WHERE id = \(scene.task)::uuid AND deleted_at IS NOT NULL") == "deleted")
        #expect(try rest.count("SELECT count(*)::int FROM status_changes WHERE entity_id = \(scene.task)::uuid AND new_status = 'deleted'") == 1)
    }

    @Test func aBulkDeleteWithOneForbiddenRowChangesNothing() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer])
        let scene = try rest.world.scene(claimed: false)
        // Staff declares a task of their own on the listing: they may delete it, not the declarer's.
        let own = try rest.send("POST", "tasks", as: .staff, body: ["title": "Mine", "listing_id": scene.listing],
                                prefer: ["return=representation"])
        let ownID = try #require(RestWriteWorld.array(own).first?["id"] as? String)
        let response = try rest.send("DELETE", "tasks?listing_id=eq.\(scene.listing)", as: .staff,
                                     prefer: ["return=representation"])
        #expect(response.status == 403 && response.json?["code"] as? String == "42501", "\(RestWriteWorld.body(response))")
        #expect(try rest.count("""
            SELECT count(*)::int FROM tasks WHERE id IN (\(ownID)::uuid, \(scene.task)::uuid) AND status = 'open' AND version = 1
            """) == 2)
        // The same bulk PATCH is allowed (whoever sees a task may update it) and changes both.
        let patched = try rest.send("PATCH", "tasks?listing_id=eq.\(scene.listing)", as: .staff,
                                    body: ["priority": "high"], prefer: ["return=representation"])
        #expect(patched.status == 200 && RestWriteWorld.array(patched).count == 2)
    }

    @Test func representationWithTheObjectAcceptAndSeveralRowsIs406AndWritesNothing() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let listing = try rest.send("POST", "listings", as: .owner, body: [["address": "1 A St"], ["address": "2 B St"]])
        #expect(listing.status == 201)
        let response = try rest.send("PATCH", "listings?owned_by=eq.\(rest.world.id(.owner))", as: .owner,
                                     body: ["city": "Halifax"], prefer: ["return=representation"],
                                     headers: ["Accept": "application/vnd.pgrst.object+json"])
        #expect(response.status == 406 && response.json?["details"] as? String == "The result contains 2 rows")
        #expect(try rest.count("SELECT count(*)::int FROM listings WHERE city = 'Halifax'") == 0)
    }
}
