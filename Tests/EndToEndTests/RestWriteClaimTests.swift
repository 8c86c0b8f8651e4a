@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Foundation
import Postgres
import Synchronization
import Testing

/// Claims the way the app makes them — a write of `claimed_by` — with `POST …/claim`'s rules
/// and side effects, plus the `Prefer` set parsing the write routes share.
@Suite struct RestWriteClaimTests {
    @Test func claimedByTheCallerIsAClaimAndNullARelease() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try rest.world.scene(claimed: false)
        let me = rest.world.id(.staff)
        let claim = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .staff,
                                  body: ["claimed_by": me.uppercased(), "status": "in_progress"],
                                  prefer: ["return=representation"])
        #expect(claim.status == 200, "\(RestWriteWorld.body(claim))")
        #expect(RestWriteWorld.array(claim).first?["claimed_by"] as? String == me)
        #expect(RestWriteWorld.array(claim).first?["status"] as? String == "in_progress")
        // The same claim again (a replay) changes nothing: no second event, no version bump.
        let version = try rest.count("SELECT version FROM tasks WHERE id = \(scene.task)::uuid")
        _ = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .staff, body: ["claimed_by": me])
        #expect(try rest.count("SELECT version FROM tasks WHERE id = \(scene.task)::uuid") == version)
        #expect(try rest.count("SELECT count(*)::int FROM claim_events WHERE entity_id = \(scene.task)::uuid") == 1)

        // Someone else: 409 claim_conflict naming the holder, and nothing else in the body applied.
        let lost = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .owner,
                                 body: ["claimed_by": rest.world.id(.owner), "title": "Taken over"])
        #expect(lost.status == 409 && lost.json?["code"] as? String == "claim_conflict")
        #expect(lost.json?["claimed_by"] as? String == me)
        #expect((lost.json?["details"] as? String)?.contains("claimed_by=\(me)") == true)
        #expect(try rest.text("SELECT title FROM tasks WHERE id = \(scene.task)::uuid") == "Call the buyer")

        // Setting it to another user is refused; null by a non-holder is the release's 403.
        for body in [["claimed_by": rest.world.id(.declarer)], ["claimed_by": NSNull()]] as [[String: Any]] {
            let refused = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .owner, body: body)
            #expect(refused.status == 403, "\(body): \(RestWriteWorld.body(refused))")
            #expect(refused.json?["code"] as? String == "42501")
        }
        // Sending the holder's id back unchanged is harmless.
        let echoed = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .owner, body: ["claimed_by": me, "title": "Echo"])
        #expect(echoed.status == 204)

        let release = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .staff, body: ["claimed_by": NSNull()],
                                    prefer: ["return=representation"])
        #expect(release.status == 200 && RestWriteWorld.array(release).first?["claimed_by"] is NSNull)
        #expect(try rest.count("""
            SELECT count(*)::int FROM claim_events WHERE entity_id = \(scene.task)::uuid AND action = 'released' AND actor_id = \(me)::uuid
            """) == 1)
    }

    @Test func anUpsertOfANewTaskClaimedByTheCallerCreatesAndClaimsIt() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let id = UUID().uuidString.lowercased()
        let body: [String: Any] = ["id": id, "title": "Offline", "claimed_by": rest.world.id(.owner)]
        for _ in 0..<2 {
            let response = try rest.send("POST", "tasks", as: .owner, body: body,
                                         prefer: ["resolution=merge-duplicates,return=representation"])
            #expect(response.status == 201 && RestWriteWorld.array(response).first?["claimed_by"] as? String == rest.world.id(.owner),
                    "\(RestWriteWorld.body(response))")
        }
        #expect(try rest.count("SELECT count(*)::int FROM claim_events WHERE entity_id = \(id)::uuid") == 1)
        #expect(try rest.count("SELECT version FROM tasks WHERE id = \(id)::uuid") == 2)
    }

    @Test func concurrentClaimsByUpdateHaveExactlyOneWinner() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer])
        let scene = try rest.world.scene(claimed: false)
        // Admins all see the task; each claims it for themselves at once, one thread each.
        var claimers: [(id: String, token: String)] = []
        for index in 0..<12 {
            let user = try rest.world.app.auth.users.create(email: "claimer\(index)@example.com", name: "C\(index)",
                                                            userType: .admin, passwordHash: "unused")
            claimers.append((user.id.uuidString.lowercased(), try rest.world.signedToken(for: user.id)))
        }
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for claimer in claimers {
            group.enter()
            let client = rest.world.app.client
            let path = "/rest/v1/tasks?id=eq.\(scene.task)"
            Thread {
                start.wait()
                let response = try? client.perform(
                    method: "PATCH", path: path,
                    headers: ["Authorization": "Bearer \(claimer.token)", "apikey": AuthTestServer.publishableKey,
                              "Content-Type": "application/json"],
                    body: Array(#"{"claimed_by":"\#(claimer.id)"}"#.utf8))
                statuses.withLock { $0.append(response?.status ?? -1) }
                group.leave()
            }.start()
        }
        for _ in claimers { start.signal() }
        group.wait()
        let all = statuses.withLock { $0 }
        #expect(all.filter { $0 == 204 }.count == 1, "\(all)")
        #expect(all.filter { $0 == 409 }.count == claimers.count - 1, "\(all)")
        #expect(try rest.count("SELECT count(*)::int FROM claim_events WHERE entity_id = \(scene.task)::uuid") == 1)
    }

    @Test func preferValuesAreASetInAnyOrderAndHeader() {
        let one = RestWritePreferences(["missing=default,resolution=merge-duplicates, return=representation"])
        let split = RestWritePreferences(["return=representation", "count=exact,resolution=merge-duplicates", "missing=default"])
        #expect(one == split)
        #expect(one.returning == .representation && one.resolution == .merge && one.missingDefault)
        #expect(RestWritePreferences([]).returning == .minimal)
        #expect(RestWritePreferences(["resolution=ignore-duplicates,tx=rollback"]).resolution == .ignore)
        #expect(RestWritePreferences(["return=headers-only"]).returning == .minimal)
    }
}

extension RestWriteClaimTests {
    @Test func bodyDatesWithoutAZoneAreUTC() {
        #expect(RestWriteRequest.utcIfNoOffset("2024-06-15T18:12:04.123") == "2024-06-15T18:12:04.123Z")
        #expect(RestWriteRequest.utcIfNoOffset("2024-06-15T18:12:04+02:00") == "2024-06-15T18:12:04+02:00")
        #expect(RestWriteRequest.utcIfNoOffset("soon") == "soon")
    }
}
