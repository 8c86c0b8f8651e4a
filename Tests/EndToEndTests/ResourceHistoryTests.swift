import Foundation
import Testing

/// Status side effects (contract §1), claim specifics (contract §3) and the history endpoints.
@Suite struct ResourceHistoryTests {
    @Test func completingAndReopeningStampsAndClearsCompletedAtWithOneStatusChangeEach() throws {
        let world = try ResourceWorld()
        let scene = try world.scene()
        let path = "/v1/tasks/\(scene.task)"
        let completed = try world.request("PATCH", path, as: .claimer, json: ["status": "completed"])
        #expect(completed.json?["completed_at"] is String)
        let reopened = try world.request("PATCH", path, as: .claimer, json: ["status": "open"])
        #expect(reopened.json?["completed_at"] is NSNull)
        _ = try world.request("PATCH", path, as: .claimer, json: ["title": "No status change"])
        let history = try world.request("GET", "\(path)/status-changes", as: .owner)
        #expect(history.status == 200)
        let items = (history.json?["items"] as? [[String: Any]]) ?? []
        // The scene's task was inserted with SQL, so its history starts with the first API write.
        let pairs = items.map { "\($0["old_status"] as? String ?? "nil")→\($0["new_status"] as? String ?? "")" }
        #expect(pairs == ["open→completed", "completed→open"])
        #expect(items.allSatisfy { $0["changed_by"] as? String == world.id(.claimer) && $0["entity_type"] as? String == "task" })
        #expect(try world.request("GET", "\(path)/status-changes", as: .stranger).status == 404)
    }

    @Test func listingStatusChangesStampTheirTimestamps() throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        let created = try world.request("POST", "/v1/listings", as: .owner, json: ["address": "1 Main St"])
        let id = try #require(created.json?["id"] as? String)
        #expect(created.json?["activated_at"] is NSNull)
        let active = try world.request("PATCH", "/v1/listings/\(id)", as: .owner, json: ["status": "active"])
        #expect(active.json?["activated_at"] is String)
        #expect(active.json?["pending_at"] is NSNull)
        let pending = try world.request("PATCH", "/v1/listings/\(id)", as: .owner, json: ["status": "pending"])
        #expect(pending.json?["pending_at"] is String)
        let closed = try world.request("PUT", "/v1/listings/\(id)", as: .owner, json: ["address": "1 Main St", "status": "closed"])
        #expect(closed.json?["closed_at"] is String)
        let deleted = try world.request("DELETE", "/v1/listings/\(id)", as: .owner)
        #expect(deleted.json?["deleted_at"] is String)
        let history = try world.request("GET", "/v1/listings/\(id)/status-changes", as: .owner)
        let pairs = ((history.json?["items"] as? [[String: Any]]) ?? []).map { "\($0["old_status"] as? String ?? "nil")→\($0["new_status"] as? String ?? "")" }
        #expect(pairs == ["nil→draft", "draft→active", "active→pending", "pending→closed", "closed→deleted"])
    }

    @Test func claimAndReleaseWriteEventsAndAdminMayReleaseSomeoneElsesClaim() throws {
        let world = try ResourceWorld()
        let scene = try world.scene(claimed: false)
        let path = "/v1/activities/\(scene.activity)"
        let claim = try world.request("POST", "\(path)/claim", as: .staff)
        #expect(claim.status == 200)
        #expect(claim.json?["claimed_at"] is String)
        #expect(claim.json?["version"] as? Int == 2)
        let again = try world.request("POST", "\(path)/claim", as: .staff)
        #expect(again.status == 200)
        #expect(again.json?["version"] as? Int == 2)
        let release = try world.request("DELETE", "\(path)/claim", as: .admin)
        #expect(release.status == 200)
        #expect(release.json?["claimed_by"] is NSNull)
        #expect(release.json?["claimed_at"] is NSNull)
        let noop = try world.request("DELETE", "\(path)/claim", as: .declarer)
        #expect(noop.status == 200)
        #expect(noop.json?["version"] as? Int == 3)
        let events = try world.request("GET", "\(path)/claim-events", as: .owner)
        let items = (events.json?["items"] as? [[String: Any]]) ?? []
        #expect(items.count == 2)
        #expect(items.first?["action"] as? String == "claimed")
        #expect(items.first?["user_id"] as? String == world.id(.staff))
        #expect(items.last?["action"] as? String == "released")
        #expect(items.last?["user_id"] as? String == world.id(.staff))
        #expect(items.last?["actor_id"] as? String == world.id(.admin))
        #expect(try world.request("GET", "\(path)/claim-events", as: .stranger).status == 404)
    }

    @Test(arguments: ["completed", "deleted"])
    func completedOrDeletedItemsAreNotClaimable(_ status: String) throws {
        let world = try ResourceWorld()
        let scene = try world.scene(taskStatus: status, claimed: false)
        let response = try world.request("POST", "/v1/tasks/\(scene.task)/claim", as: .owner)
        #expect(response.status == 409)
        #expect(response.json?["code"] as? String == "not_claimable")
        #expect(try world.count("SELECT count(*) FROM claim_events WHERE entity_id = \(scene.task)::uuid") == 0)
    }

    @Test func claimingMakesTheListingVisibleToTheClaimerAndReleaseHidesIt() throws {
        let world = try ResourceWorld()
        let scene = try world.scene(claimed: false)
        // The owner lets the stranger see the task by making them staff, they claim, then lose staff.
        _ = try world.request("PATCH", "/v1/listings/\(scene.listing)", as: .owner, json: ["assigned_staff": world.id(.stranger)])
        #expect(try world.request("POST", "/v1/tasks/\(scene.task)/claim", as: .stranger).status == 200)
        _ = try world.request("PATCH", "/v1/listings/\(scene.listing)", as: .owner, json: ["assigned_staff": NSNull()])
        #expect(try world.request("GET", "/v1/listings/\(scene.listing)", as: .stranger).status == 200)
        #expect(try world.request("DELETE", "/v1/tasks/\(scene.task)/claim", as: .stranger).status == 200)
        #expect(try world.request("GET", "/v1/listings/\(scene.listing)", as: .stranger).status == 404)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .stranger).status == 404)
    }
}
