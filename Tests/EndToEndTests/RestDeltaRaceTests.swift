import Foundation
import Postgres
import Synchronization
import Testing

/// Gap-free delta polling through `/rest/v1` for an app that asks `updated_at=gt.<lastSync>`
/// with its own clock: the blocked-writer race, and a phone clock
/// running ahead within the documented bound.
@Suite struct RestDeltaRaceTests {
    static func stamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `tasks?updated_at=gt.<since>` as supabase-swift sends it (percent-encoded), titles by id.
    static func poll(_ rest: RestWorld, since: String) throws -> [String: String] {
        let encoded = since.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? since
        let rows = RestWorld.array(try rest.get("tasks?select=id,title&updated_at=gt.\(encoded)"))
        var titles: [String: String] = [:]
        for row in rows { if let id = row["id"] as? String { titles[id] = row["title"] as? String } }
        return titles
    }

    @Test func aWriteBlockedBehindARowLockArrivesInTheNextPoll() throws {
        let rest = try RestWorld()
        let alpha = rest.id("Alpha"), bravo = rest.id("Bravo")
        let database = rest.world.app.database
        // Another connection holds Alpha's row lock.
        let holder = try database.connect()
        try holder.execute("BEGIN")
        try holder.execute("SELECT 1 FROM tasks WHERE id = \(alpha)::uuid FOR UPDATE")
        // A /v1 PATCH of Alpha starts its transaction now and blocks on the lock.
        let lateStatus = Mutex<Int?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let world = rest.world
        let client = world.app.client, token = world.token(.owner)
        Thread {
            let response = try? client.perform(method: "PATCH", path: "/v1/tasks/\(alpha)",
                                               headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                               body: Array(#"{"title":"Late"}"#.utf8))
            lateStatus.withLock { $0 = response?.status }
            finished.signal()
        }.start()
        #expect(try RestReadStreamTests.eventually {
            try database.pool.query("SELECT count(*) AS n FROM pg_locks WHERE NOT granted").first?.decode("n", as: Int.self) ?? 0 > 0
        }, "the PATCH waits on the lock")
        // Another write commits meanwhile; the app polls, then takes lastSync from its clock.
        #expect(try world.request("PATCH", "/v1/tasks/\(bravo)", as: .owner, json: ["title": "Bravo 2"]).status == 200)
        let first = try Self.poll(rest, since: Self.stamp(Date()))
        #expect(first[bravo] == "Bravo 2")
        #expect(first[alpha] != "Late")
        let lastSync = Self.stamp(Date())
        // The lock is released; the late write commits with an updated_at before lastSync.
        try holder.execute("COMMIT")
        finished.wait()
        #expect(lateStatus.withLock { $0 } == 200)
        let literal = try database.pool.query("SELECT updated_at > \(lastSync)::timestamptz AS after FROM tasks WHERE id = \(alpha)::uuid")
        #expect(try literal.first?.decode("after", as: Bool.self) == false, "served literally, the filter would lose it")
        // The next poll contains it.
        #expect(try Self.poll(rest, since: lastSync)[alpha] == "Late")
    }

    @Test func aPhoneClockAheadWithinTheBoundLosesNothing() throws {
        let rest = try RestWorld()
        let charlie = rest.id("Charlie")
        #expect(try rest.world.request("PATCH", "/v1/tasks/\(charlie)", as: .owner, json: ["title": "Charlie 2"]).status == 200)
        // The default bound (APIApplication.restDelta): 60 s of skew on top of the longest write.
        #expect(try Self.poll(rest, since: Self.stamp(Date().addingTimeInterval(55)))[charlie] == "Charlie 2")
        // Past the longest write plus the bound, the guarantee ends (documented).
        #expect(try Self.poll(rest, since: Self.stamp(Date().addingTimeInterval(200)))[charlie] == nil)
        // lt/lte and other columns are served literally.
        let encoded = Self.stamp(Date()).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        #expect(RestWorld.array(try rest.get("tasks?select=id&created_at=gt.\(encoded)")).isEmpty)
    }
}
