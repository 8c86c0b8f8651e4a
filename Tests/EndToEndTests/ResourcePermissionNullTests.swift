import Foundation
import Testing

/// Permission checks whose SQL compares nullable columns (a listing without staff, a task
/// without a listing) answer 403 to a user who sees the row but may not change it — found by
/// `SyncAPIConvergenceTests` as a 500 (a NULL permission that failed to decode).
@Suite struct ResourcePermissionNullTests {
    @Test func patchOfListingWithoutStaffSeenOnlyThroughADeclaredTaskAnswers403() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .declarer])
        let listing = UUID().uuidString.lowercased()
        try world.app.database.pool.withTransaction { connection in
            try connection.execute("INSERT INTO listings (id, address, owned_by) VALUES (\(listing)::uuid, '2 Elm St', \(world.id(.owner))::uuid)")
            try connection.execute("INSERT INTO tasks (title, declared_by, listing_id) VALUES ('Call', \(world.id(.declarer))::uuid, \(listing)::uuid)")
        }
        #expect(try world.request("GET", "/v1/listings/\(listing)", as: .declarer).status == 200)
        let response = try world.request("PATCH", "/v1/listings/\(listing)", as: .declarer, json: ["address": "3 Elm St"])
        #expect(response.status == 403)
    }

    @Test func deleteOfTaskWithoutListingByItsClaimerAnswers403() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .declarer, .claimer])
        // The owner owns some listing, so `listing_id IN (…)` has rows to compare NULL with.
        try world.app.database.pool.execute("INSERT INTO listings (address, owned_by) VALUES ('4 Elm St', \(world.id(.claimer))::uuid)")
        let task = UUID().uuidString.lowercased()
        try world.app.database.pool.execute("""
            INSERT INTO tasks (id, title, declared_by, claimed_by, claimed_at)
            VALUES (\(task)::uuid, 'Call', \(world.id(.declarer))::uuid, \(world.id(.claimer))::uuid, now())
            """)
        let response = try world.request("DELETE", "/v1/tasks/\(task)", as: .claimer)
        #expect(response.status == 403)
    }
}
