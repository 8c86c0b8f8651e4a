import Foundation
import Testing

/// `POST /rest/v1/rpc/{claim,release}_{task,activity}`: the same claim and release as
/// `/v1/…/{id}/claim` (one `claim_events` row, a version bump, the holder named on a conflict),
/// answered as a PostgREST function returning one row: a JSON object.
@Suite struct RestRPCTests {
    /// A call as supabase-swift sends it: `Apikey`, a bearer token, the parameters as JSON.
    static func call(_ world: ResourceWorld, _ function: String, _ parameters: [String: Any], as role: ResourceWorld.Role,
                     headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        var headers = headers
        headers["Apikey"] = AuthTestServer.publishableKey
        return try world.request("POST", "/rest/v1/rpc/\(function)", as: role, json: parameters, headers: headers)
    }

    static func text(_ response: TestHTTPClient.Response) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test(arguments: [("task", "tasks"), ("activity", "activities")])
    func claimThenReleaseWriteOneEventEachAndBumpTheVersion(_ kind: String, _ table: String) throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try world.scene(claimed: false)
        let id = kind == "task" ? scene.task : scene.activity
        let before = try world.count("SELECT version FROM \(unsafeSQL: table) WHERE id = \(id)::uuid")

        // Upper case, as Swift's uuidString sends it.
        let claimed = try Self.call(world, "claim_\(kind)", ["\(kind)_id": id.uppercased()], as: .staff)
        #expect(claimed.status == 200, "\(Self.text(claimed))")
        #expect(claimed.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(claimed.json?["id"] as? String == id)
        #expect(claimed.json?["claimed_by"] as? String == world.id(.staff))
        #expect(claimed.json?["claimed_at"] is String)
        #expect(claimed.json?["version"] as? Int == before + 1)
        // Claiming what you already hold changes nothing; `.single()`'s Accept gets the same object.
        let again = try Self.call(world, "claim_\(kind)", ["\(kind)_id": id], as: .staff,
                                  headers: ["Accept": "application/vnd.pgrst.object+json"])
        #expect(again.status == 200 && again.json?["version"] as? Int == before + 1)
        #expect(again.header("Content-Type")?.hasPrefix("application/vnd.pgrst.object+json") == true)

        let released = try Self.call(world, "release_\(kind)", ["\(kind)_id": id], as: .staff)
        #expect(released.status == 200, "\(Self.text(released))")
        #expect(released.json?["claimed_by"] is NSNull)
        #expect(released.json?["version"] as? Int == before + 2)
        #expect(try world.count("""
            SELECT count(*) FROM claim_events WHERE entity_id = \(id)::uuid AND entity_type = \(kind)
              AND user_id = \(world.id(.staff))::uuid AND actor_id = \(world.id(.staff))::uuid
            """) == 2)
        #expect(try world.count("SELECT count(*) FROM claim_events WHERE entity_id = \(id)::uuid AND action = 'claimed'") == 1)
    }

    @Test func aClaimHeldBySomeoneElseIs409NamingTheHolderAndWritesNothing() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try world.scene(claimed: true)
        let version = try world.count("SELECT version FROM tasks WHERE id = \(scene.task)::uuid")
        let response = try Self.call(world, "claim_task", ["task_id": scene.task], as: .owner)
        #expect(response.status == 409, "\(Self.text(response))")
        #expect(response.json?["code"] as? String == "claim_conflict")
        // PostgREST's four keys, details a text (supabase-swift decodes it), the holder also as a key.
        #expect(response.json?["claimed_by"] as? String == world.id(.claimer))
        #expect((response.json?["details"] as? String)?.contains("claimed_by=\(world.id(.claimer))") == true)
        #expect(response.json?.keys.sorted() == ["claimed_at", "claimed_by", "code", "details", "hint", "message"])
        #expect(try world.count("SELECT count(*) FROM claim_events WHERE entity_id = \(scene.task)::uuid") == 0)
        #expect(try world.count("SELECT version FROM tasks WHERE id = \(scene.task)::uuid") == version)
        // Only the claimer or an admin releases it; the admin's release names the claimer as the user.
        let notYours = try Self.call(world, "release_task", ["task_id": scene.task], as: .owner)
        #expect(notYours.status == 403 && notYours.json?["code"] as? String == "42501")
        let byAdmin = try Self.call(world, "release_task", ["task_id": scene.task], as: .admin)
        #expect(byAdmin.status == 200 && byAdmin.json?["claimed_by"] is NSNull)
        #expect(try world.count("""
            SELECT count(*) FROM claim_events WHERE entity_id = \(scene.task)::uuid AND action = 'released'
              AND user_id = \(world.id(.claimer))::uuid AND actor_id = \(world.id(.admin))::uuid
            """) == 1)
    }

    @Test func invisibleMissingAndClosedItemsAreRefusedLikeOnV1() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer, .stranger])
        let scene = try world.scene(claimed: false)
        let hidden = try Self.call(world, "claim_task", ["task_id": scene.task], as: .stranger)
        #expect(hidden.status == 404 && hidden.json?["code"] as? String == "not_found")
        let missing = try Self.call(world, "claim_activity", ["activity_id": UUID().uuidString], as: .owner)
        #expect(missing.status == 404 && missing.json?["code"] as? String == "not_found")
        let completed = try world.scene(taskStatus: "completed", claimed: false)
        let closed = try Self.call(world, "claim_task", ["task_id": completed.task], as: .owner)
        #expect(closed.status == 409 && closed.json?["code"] as? String == "not_claimable")
        #expect(try world.count("SELECT count(*) FROM claim_events") == 0)
    }

    @Test func withoutAUserOrAKeyTheAnswerIs401() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try world.scene(claimed: false)
        let key = AuthTestServer.publishableKey
        let body = Array("{\"task_id\":\"\(scene.task)\"}".utf8)
        let anonymous = try world.app.request("POST", "/rest/v1/rpc/claim_task", body: body,
                                              headers: ["apikey": key, "Authorization": "Bearer \(key)", "Content-Type": "application/json"])
        #expect(anonymous.status == 401 && anonymous.json?["code"] as? String == "PGRST301")
        let noKey = try world.app.request("POST", "/rest/v1/rpc/claim_task", token: world.token(.owner), body: body,
                                          headers: ["Content-Type": "application/json"])
        #expect(noKey.status == 401 && noKey.json?["code"] as? String == "no_api_key")
        #expect(try world.count("SELECT count(*) FROM claim_events") == 0)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE claimed_by IS NOT NULL") == 0)
    }
}
