import Foundation
import Realtime
import Store
import Testing

/// Silent pushes end to end: writes over real HTTP, the change stream, the outbox, and APNs
/// over HTTP/2 + TLS to a local fake that verifies every request and JWT (APNsFake).
@Suite(.serialized) struct PushWakeTests {
    @Test func aClaimOfBsTaskWakesBsDeviceAndNotTheClaimers() throws {
        let world = try PushWorld()
        let claim = try world.app.request("POST", "/v1/tasks/\(world.task)/claim", token: world.a.token)
        #expect(claim.status == 200)
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenB) == 1 })
        #expect(try world.pushes(to: PushWorld.tokenA) == 0)
        #expect(try world.outboxRows(world.a.device) == 0, "the claimer's own device was queued")
        let push = try #require(try world.fake.requests(to: PushWorld.tokenB).first)
        #expect(push.path == "/3/device/\(PushWorld.tokenB)" && push.method == "POST")
        #expect(push.push_type == "background" && push.priority == "5" && push.topic == "com.example.dispatch")
        #expect(push.jwt_problem == nil && push.status == 200)
        #expect(push.body == #"{"aps":{"content-available":1},"dispatch":{"reason":"urgent"}}"#)
    }

    @Test func tenQuickChangesWakeOnceWithinTheIntervalAndAnUrgentHandOverAtOnce() throws {
        let world = try PushWorld()
        try world.patchTask("First")
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenB) == 1 })
        for number in 2...10 { try world.patchTask("Change \(number)") }
        try world.settle()
        #expect(try world.pushes(to: PushWorld.tokenB) == 1)
        // The other nine are folded into one wake-up, due an interval after the push.
        #expect(try world.scalar("""
            SELECT count(*)::text FROM push_outbox WHERE device_id = '\(world.b.device)' AND sent_at IS NULL
              AND reason = 'changed' AND next_attempt_at > now() + interval '50 minutes'
            """) == "1")
        // The console's hand-over: an admin gives the claim to B. Urgent: at once.
        let admin = Viewer(userID: world.adminID, isAdmin: true)
        let store = WorkItemStore(pool: world.app.database.pool, kind: .task)
        _ = try world.app.database.pool.withTransaction { try store.reassign(admin, id: try PushWorld.uuid(world.task), to: world.b.id, on: $0) }
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenB) == 2 })
        #expect(try world.fake.requests(to: PushWorld.tokenB).last?.body.contains(#""reason":"urgent""#) == true)
        // One connection and one provider token for every push.
        let requests = try world.fake.requests()
        #expect(Set(requests.map(\.session)) == [1])
        #expect(Set(requests.map(\.jwt)).count == 1 && world.sender.counts.providerTokens == 1)
    }

    @Test func aDeviceWhoseSessionHoldsALongPollIsSkipped() throws {
        let world = try PushWorld()
        let since = try Self.syncToEnd(world, token: world.b.token)
        let answered = LongPoll()
        let client = world.app.client
        let token = world.b.token
        let thread = Thread {
            let response = try? client.perform(method: "GET", path: "/v1/sync?wait=20&since=\(since)",
                                               headers: ["Authorization": "Bearer \(token)"])
            answered.finish(response?.status ?? 0)
        }
        thread.start()
        #expect(world.wait { world.app.sync?.liveSessions.current.isEmpty == false })
        try world.patchTask("While B listens")
        #expect(world.wait { answered.status != nil })
        try world.settle()
        // A (the listing's staff, not listening) is woken: the change was handled.
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenA) == 1 })
        #expect(try world.pushes(to: PushWorld.tokenB) == 0)
        #expect(try world.outboxRows(world.b.device) == 0, "the listening device was queued")
    }

    @Test func aDeviceWhoseSessionHoldsARealtimeChannelIsSkippedUntilTheChannelCloses() throws {
        let world = try PushWorld()
        let sync = try #require(world.app.sync)
        let service = RealtimeService(auth: world.app.auth, sync: sync, tokenCheckInterval: .milliseconds(200))
        defer { service.stop() }
        let client = try RealtimeTestClient(service)
        let join = try client.join("work", token: world.b.token, changes: [RealtimeChannelTests.tasks])
        #expect(sync.liveSessions.current.count == 1)
        try world.patchTask("While B watches")
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenA) == 1 })
        #expect(try world.pushes(to: PushWorld.tokenB) == 0 && world.outboxRows(world.b.device) == 0)
        // Leaving the channel ends the hold: the next change wakes B's phone.
        _ = try client.push(topic: "realtime:work", event: "phx_leave", payload: [:], joinRef: join.joinRef)
        #expect(world.wait { sync.liveSessions.current.isEmpty })
        try world.patchTask("After B left")
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenB) == 1 })
    }

    @Test func unregisteredRemovesTheDeviceUnlessItRegisteredAgainAfterApplesTimestamp() throws {
        let world = try PushWorld()
        // Apple's timestamp is before B's registration: B registered the token again since.
        try world.fake.script([PushWorld.tokenB: ["410:Unregistered:1000"]])
        try world.patchTask("One")
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenB) == 1 })
        #expect(try world.wait { try world.scalar("SELECT last_error FROM push_outbox WHERE device_id = '\(world.b.device)'") == "Unregistered" })
        #expect(try world.scalar("SELECT count(*)::text FROM push_devices WHERE id = '\(world.b.device)'") == "1")
        // Now after it: the device goes.
        let later = Int((Date().timeIntervalSince1970 + 60) * 1000)
        try world.fake.script([PushWorld.tokenB: ["410:Unregistered:\(later)"]])
        try world.reset()
        try world.patchTask("Two")
        try world.settle()
        #expect(try world.wait { try world.scalar("SELECT count(*)::text FROM push_devices WHERE id = '\(world.b.device)'") == "0" })
        let listed = try world.app.request("GET", "/v1/devices", token: world.b.token)
        #expect((listed.json?["items"] as? [Any])?.isEmpty == true)
        #expect(world.sender.counts.devicesRemoved == 1)
        // 400 BadDeviceToken (say, a sandbox token sent to production) removes it too.
        let again = try PushWorld.register(world.app, token: world.b.token, device: PushWorld.tokenB)
        try world.fake.script([PushWorld.tokenB: ["400:BadDeviceToken"]])
        try world.reset()
        try world.patchTask("Three")
        try world.settle()
        #expect(try world.wait { try world.scalar("SELECT count(*)::text FROM push_devices WHERE id = '\(again)'") == "0" })
        #expect(world.sender.counts.devicesRemoved == 2)
    }

    @Test func expiredProviderTokenMakesANewJWTExactlyOnce() throws {
        let world = try PushWorld()
        try world.fake.script([PushWorld.tokenB: ["403:ExpiredProviderToken"]])
        try world.patchTask("One")
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenB) == 2 })
        #expect(try world.wait { try world.scalar("SELECT (last_push_at IS NOT NULL)::text FROM push_devices WHERE id = '\(world.b.device)'") == "true" })
        let requests = try world.fake.requests(to: PushWorld.tokenB)
        #expect(requests.map(\.status) == [403, 200])
        #expect(requests[0].jwt != requests[1].jwt)
        #expect(world.sender.counts.providerTokens == 2)
        // The new token is kept: A's push reuses it.
        try world.reset()
        try world.patchTask("Two")
        try world.settle()
        #expect(try world.wait { try world.pushes(to: PushWorld.tokenA) >= 1 })
        #expect(try world.fake.requests(to: PushWorld.tokenA).last?.jwt == requests[1].jwt)
        #expect(world.sender.counts.providerTokens == 2)
    }

    /// Pages `/v1/sync` to its end; returns the cursor to long-poll from.
    static func syncToEnd(_ world: PushWorld, token: String) throws -> String {
        var since: String?
        for _ in 0..<50 {
            let path = "/v1/sync?limit=500" + (since.map { "&since=\($0)" } ?? "")
            let response = try world.app.request("GET", path, token: token)
            guard response.status == 200, let next = response.json?["next_since"] as? String else {
                throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
            }
            since = next
            if response.json?["has_more"] as? Bool != true { return next }
        }
        throw AuthTestError.unexpected(0, "sync never ended")
    }
}

/// The answer of a long-poll running on another thread.
final class LongPoll: @unchecked Sendable {
    private let lock = NSLock()
    private var answer: Int?
    var status: Int? { lock.withLock { answer } }
    func finish(_ status: Int) { lock.withLock { answer = status } }
}

/// What the sender does with APNs' temporary refusals and with wake-ups owed too long.
@Suite(.serialized) struct PushRetryTests {
    @Test func serviceUnavailableIsRetriedAndTooManyRequestsBacksTheDeviceOff() throws {
        let world = try PushWorld()
        try world.fake.script([PushWorld.tokenB: ["503:ServiceUnavailable"], PushWorld.tokenA: ["429:TooManyRequests"]])
        try world.patchTask("One")
        try world.settle()
        // 503: tried again two seconds later, and taken.
        #expect(try world.wait { try world.fake.requests(to: PushWorld.tokenB).map(\.status) == [503, 200] })
        // 429: that device waits a minute; its wake-up is still owed.
        #expect(try world.wait { try world.scalar("""
            SELECT (next_attempt_at > now() + interval '50 seconds')::text FROM push_outbox
            WHERE device_id = '\(world.a.device)' AND sent_at IS NULL AND dead_at IS NULL AND last_status = 429
            """) == "true" })
        #expect(try world.fake.requests(to: PushWorld.tokenA).map(\.status) == [429])
    }

    @Test func aWakeUpOwedTooLongIsDroppedNotSentLate() throws {
        let world = try PushWorld()
        try world.fake.script([PushWorld.tokenB: ["503:ServiceUnavailable"]])
        try world.patchTask("One")
        try world.settle()
        #expect(try world.wait { try world.fake.requests(to: PushWorld.tokenB).count == 1 })
        // It has been owed for ten minutes by the time it is due again.
        #expect(try world.app.database.pool.execute("""
            UPDATE push_outbox SET due_at = now() - interval '10 minutes', next_attempt_at = now()
            WHERE sent_at IS NULL AND dead_at IS NULL AND last_status = 503
            """) == 1)
        #expect(world.wait { world.sender.counts.droppedStale == 1 })
        #expect(try world.fake.requests(to: PushWorld.tokenB).count == 1)
        #expect(try world.wait { try world.scalar(
            "SELECT (dead_at IS NOT NULL AND last_error LIKE 'stale%')::text FROM push_outbox WHERE device_id = '\(world.b.device)'") == "true" })
    }
}
