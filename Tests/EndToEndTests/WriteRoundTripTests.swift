import Foundation
import Testing

/// A create, a claim and a release of one's own claim are one statement each (to keep the cost
/// per request low), the caller's account check included (read in the write's statement): the
/// request makes two round trips to PostgreSQL — the write, and the sync wake-up sent in its
/// own transaction after the write commits
/// (`SELECT pg_notify`, PostgresConnection+AfterCommitNotify.swift, so the write does
/// not commit under PostgreSQL's NOTIFY lock) — instead of BEGIN, the reads and writes one by
/// one, and COMMIT (six for a create, five for a claim, six for a release before; three each
/// while the account check was a statement of its own). Counted with
/// the pool's statement timings (`db_query_duration_seconds`), which record every round trip.
@Suite struct WriteRoundTripTests {
    @Test func createClaimAndReleaseAreOneStatementBesidesTheWakeUp() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .declarer, .staff])
        let scene = try world.scene(claimed: false)
        let pool = world.app.database.pool
        let owner = ["Authorization": "Bearer \(world.token(.owner))"]
        let json = ["Content-Type": "application/json"].merging(owner) { $1 }
        // The change stream reads through the same pool 20 ms after each commit; it is let
        // settle between measurements, and each operation counts its fewest of three tries.
        func roundTrips(_ request: () throws -> Int) throws -> (statuses: Set<Int>, trips: Int) {
            var statuses: Set<Int> = [], fewest = Int.max
            for _ in 0..<3 {
                Thread.sleep(forTimeInterval: 0.3)
                let before = pool.queryTimings.snapshot.count
                statuses.insert(try request())
                fewest = min(fewest, pool.queryTimings.snapshot.count - before)
            }
            return (statuses, fewest)
        }
        let created = try roundTrips {
            try world.app.client.perform(method: "POST", path: "/v1/tasks", headers: json,
                                         body: Array(#"{"title": "One trip", "listing_id": "\#(scene.listing)"}"#.utf8)).status
        }
        #expect(created == ([201], 2))
        // Claiming again and releasing again change nothing (and take the longer paths); the
        // first try of each is the one-statement write.
        let claimed = try roundTrips {
            try world.app.client.perform(method: "POST", path: "/v1/tasks/\(scene.task)/claim", headers: owner).status
        }
        let released = try roundTrips {
            try world.app.client.perform(method: "DELETE", path: "/v1/tasks/\(scene.task)/claim", headers: owner).status
        }
        #expect(claimed.statuses == [200])
        #expect(claimed.trips == 2)
        #expect(released.statuses == [200])
        #expect(released.trips == 2)
        // A PATCH is a transaction (BEGIN, the row's lock with the account read in it, the
        // UPDATE, COMMIT) and the wake-up: five, six while the account check was its own.
        let patched = try roundTrips {
            try world.app.client.perform(method: "PATCH", path: "/v1/tasks/\(scene.task)", headers: json,
                                         body: Array(#"{"title": "Renamed", "priority": "high"}"#.utf8)).status
        }
        #expect(patched == ([200], 5))
        // Each still wrote its history rows.
        #expect(try world.count("SELECT count(*) FROM claim_events WHERE entity_id = \(scene.task)::uuid") == 2)
        #expect(try world.count("SELECT count(*) FROM status_changes WHERE entity_type = 'task' AND changed_by = \(world.id(.owner))::uuid") >= 1)
    }
}
