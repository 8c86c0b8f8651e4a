import Foundation
import Testing

/// The curl session of docs/integrators/curl.md as a test: a listing, a task on it, a claim and a conflicting one.
@Suite struct ResourceSmokeTests {
    @Test func listingTaskClaimAndConflictingClaimFollowTheReadmeSession() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff])
        let listing = try world.request("POST", "/v1/listings", as: .owner,
                                        json: ["address": "12 Harbour St", "city": "Halifax", "price": 525000.5,
                                               "assigned_staff": world.id(.staff)])
        #expect(listing.status == 201)
        let listingID = try #require(listing.json?["id"] as? String)
        #expect(listing.header("Location") == "/v1/listings/\(listingID)")
        #expect(listing.header("ETag") == "\"1\"")
        #expect(listing.json?["owned_by"] as? String == world.id(.owner))
        let task = try world.request("POST", "/v1/tasks", as: .owner,
                                     json: ["title": "Book photographer", "listing_id": listingID, "priority": "high",
                                            "due_date": "2026-12-01"])
        #expect(task.status == 201)
        let taskID = try #require(task.json?["id"] as? String)
        #expect(task.json?["due_date"] as? String == "2026-12-01T00:00:00.000Z")
        let claim = try world.request("POST", "/v1/tasks/\(taskID)/claim", as: .owner)
        #expect(claim.status == 200)
        #expect(claim.json?["claimed_by"] as? String == world.id(.owner))
        let conflict = try world.request("POST", "/v1/tasks/\(taskID)/claim", as: .staff)
        #expect(conflict.status == 409)
        #expect(conflict.json?["code"] as? String == "claim_conflict")
        let details = conflict.json?["details"] as? [String: Any]
        #expect(details?["claimed_by"] as? String == world.id(.owner))
        #expect(details?["claimed_at"] as? String == claim.json?["claimed_at"] as? String)
    }
}
