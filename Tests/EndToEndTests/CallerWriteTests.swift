import Foundation
import Postgres
import Testing

/// A create, a claim, a release and a PATCH read the caller's account in their own statement
/// (`CallerSQL`; for a PATCH, the one that locks the row): the account's state and role must still decide, as when it was read by
/// a separate check first. The account is changed with SQL, behind the sessions' back, so the
/// write's own read is the only thing that can notice.
@Suite struct CallerWriteTests {
    /// A deactivated caller's create, claim, release and PATCH answer 401 and write nothing: no row, no
    /// history row, no claim changed. A body the rules reject answers 401 too, not its 422.
    @Test func aDeactivatedCallersWritesAnswer401AndWriteNothing() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try world.scene(claimed: true)
        let free = try world.scene(claimed: false)
        let pool = world.app.database.pool
        for role in [ResourceWorld.Role.owner, .claimer] {
            try pool.execute("UPDATE users SET deactivated_at = now() WHERE id = \(world.id(role))::uuid")
        }
        let create = try world.request("POST", "/v1/tasks", as: .owner, json: ["title": "Gone", "listing_id": free.listing])
        #expect(create.status == 401)
        #expect(create.json?["code"] as? String == "unauthorized")
        let invalid = try world.request("POST", "/v1/tasks", as: .owner, json: ["title": "", "priority": "bogus", "listing_id": free.listing])
        #expect(invalid.status == 401)
        #expect(try world.request("POST", "/v1/tasks/\(free.task)/claim", as: .owner).status == 401)
        #expect(try world.request("DELETE", "/v1/tasks/\(scene.task)/claim", as: .claimer).status == 401)
        #expect(try world.request("POST", "/v1/tasks/not-a-uuid/claim", as: .owner).status == 401)
        #expect(try world.request("PATCH", "/v1/tasks/\(free.task)", as: .owner, json: ["title": "Renamed"]).status == 401)
        #expect(try world.request("PATCH", "/v1/tasks/\(free.task)", as: .owner, json: ["priority": "bogus"]).status == 401)
        #expect(try world.request("PATCH", "/v1/tasks/not-a-uuid", as: .owner, json: ["title": "Renamed"]).status == 401)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE title = 'Renamed'") == 0)

        #expect(try world.count("SELECT count(*) FROM tasks WHERE title = 'Gone'") == 0)
        #expect(try world.count("SELECT count(*) FROM status_changes WHERE changed_by = \(world.id(.owner))::uuid") == 0)
        #expect(try world.count("SELECT count(*) FROM claim_events") == 0)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE id = \(free.task)::uuid AND claimed_by IS NULL") == 1)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE id = \(scene.task)::uuid AND claimed_by = \(world.id(.claimer))::uuid") == 1)

        // Active again: the same requests write.
        for role in [ResourceWorld.Role.owner, .claimer] {
            try pool.execute("UPDATE users SET deactivated_at = NULL WHERE id = \(world.id(role))::uuid")
        }
        #expect(try world.request("POST", "/v1/tasks", as: .owner, json: ["title": "Back", "listing_id": free.listing]).status == 201)
        #expect(try world.request("POST", "/v1/tasks/\(free.task)/claim", as: .owner).status == 200)
        #expect(try world.request("DELETE", "/v1/tasks/\(scene.task)/claim", as: .claimer).status == 200)
        #expect(try world.request("PATCH", "/v1/tasks/\(free.task)", as: .owner, json: ["title": "Renamed"]).status == 200)
    }

    /// The role is the one the users row holds at the write, read in its statement: a realtor
    /// made administrator creates on and claims from a listing they do not hold, and an
    /// administrator made realtor no longer can (422 `unknown_listing`, 404), nor release
    /// another's claim or edit the item (404: it no longer sees it).
    @Test func theRoleTheWriteUsesIsTheOneTheUsersRowHoldsThen() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer, .stranger])
        let pool = world.app.database.pool
        let first = try world.scene(claimed: false), second = try world.scene(claimed: true)
        func setType(_ role: ResourceWorld.Role, _ type: String) throws {
            try pool.execute("UPDATE users SET user_type = \(type) WHERE id = \(world.id(role))::uuid")
        }
        let hidden = try world.request("POST", "/v1/tasks", as: .stranger, json: ["title": "Not mine", "listing_id": first.listing])
        #expect(hidden.status == 422)
        #expect(hidden.json?["code"] as? String == "validation_failed")
        #expect(try world.request("POST", "/v1/tasks/\(first.task)/claim", as: .stranger).status == 404)
        #expect(try world.request("PATCH", "/v1/tasks/\(first.task)", as: .stranger, json: ["title": "Seen"]).status == 404)

        try setType(.stranger, "admin")
        #expect(try world.request("POST", "/v1/tasks", as: .stranger, json: ["title": "Now mine", "listing_id": first.listing]).status == 201)
        #expect(try world.request("POST", "/v1/tasks/\(first.task)/claim", as: .stranger).status == 200)
        #expect(try world.request("PATCH", "/v1/tasks/\(second.task)", as: .stranger, json: ["title": "Seen"]).status == 200)
        #expect(try world.request("DELETE", "/v1/tasks/\(second.task)/claim", as: .stranger).status == 200)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE id = \(second.task)::uuid AND claimed_by IS NULL") == 1)

        try setType(.admin, "realtor")
        #expect(try world.request("POST", "/v1/tasks", as: .admin, json: ["title": "Demoted", "listing_id": first.listing]).status == 422)
        #expect(try world.request("POST", "/v1/tasks/\(second.task)/claim", as: .declarer).status == 200)
        #expect(try world.request("DELETE", "/v1/tasks/\(second.task)/claim", as: .admin).status == 404)
        #expect(try world.request("PATCH", "/v1/tasks/\(second.task)", as: .admin, json: ["title": "Demoted"]).status == 404)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE title = 'Demoted'") == 0)
    }
}
