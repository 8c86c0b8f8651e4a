import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import Postgres
import Store
import Synchronization
import Testing

/// Sync health per device: requests are recorded in memory only and written in one
/// batch per flush, counters from two instances add up, replayed push results are not counted
/// twice, and the lag the console shows is what the device's next sync would bring.
@Suite struct SyncDeviceHealthTests {
    static let hour: Duration = .seconds(3600)

    static func push(_ server: SyncTestServer, _ member: SyncTestServer.Member, _ mutations: [[String: Any]]) throws -> [String] {
        let body = Array(try JSONSerialization.data(withJSONObject: ["mutations": mutations]))
        let response = try server.client.perform(method: "POST", path: "/v1/sync/push",
                                                 headers: ["Authorization": "Bearer \(member.token)", "Content-Type": "application/json"],
                                                 body: body)
        let results = (response.json?["results"] as? [[String: Any]]) ?? []
        return results.compactMap { $0["status"] as? String }
    }

    @Test func requestsAreGatheredInMemoryAndWrittenInOneBatchThatAddsUp() throws {
        let server = try SyncTestServer(instances: 2, deviceFlushInterval: Self.hour)
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto, staff: rita)
        let task = try server.task(by: otto, on: listing, claimedBy: otto)

        let first = try server.sync(rita, instance: 0)
        let since = try #require(first.json?["next_since"] as? String)
        let second = try server.sync(rita, since: since, instance: 1)
        #expect(second.status == 200)
        let claim: [String: Any] = ["mutation_id": UUID().uuidString, "op": "claim", "type": "task", "id": task.uuidString]
        let bogus: [String: Any] = ["mutation_id": UUID().uuidString, "op": "explode", "type": "task", "id": task.uuidString]
        #expect(try Self.push(server, rita, [claim, bogus]) == ["conflict", "rejected"])
        // A replay answers the recorded results; they were counted when first decided.
        // (The unparseable entry has no recorded result: it is decided, and counted, again.)
        #expect(try Self.push(server, rita, [claim]) == ["conflict"])

        #expect(try server.client.perform(method: "GET", path: "/v1/me", headers: ["Authorization": "Bearer \(otto.token)"]).status == 200)
        let store = DeviceHealthStore(pool: server.pool)
        #expect(try store.devices(userID: rita.id).isEmpty, "nothing is written per request")
        // The later sync's cursor wins whichever instance flushes first.
        try server.instances[1].sync.devices.flush()
        try server.instances[0].sync.devices.flush()
        #expect(server.instances[0].sync.devices.pendingCount == 0)

        let devices = try store.devices(userID: rita.id)
        let device = try #require(devices.first)
        #expect(devices.count == 1)
        #expect(device.kind == .session)
        #expect(device.syncs == 2 && device.pushes == 2)
        #expect(device.claimConflicts == 1 && device.rejected == 1 && device.conflicts == 0 && device.resets == 0)
        #expect(device.cursor == second.json?["next_since"] as? String)
        #expect(device.lastSync != nil && device.lastPush != nil)
        #expect(try store.devices(userID: otto.id).count == 1, "otto was seen (GET /v1/me), never synced")
        #expect(try store.devices(userID: otto.id).first?.lastSync == nil)
    }

    @Test func lagIsWhatTheNextSyncWouldBringAndA410CountsAsAReset() throws {
        let server = try SyncTestServer(deviceFlushInterval: Self.hour)
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto, staff: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let devices = server.instances[0].sync.devices
        let store = DeviceHealthStore(pool: server.pool)
        let feed = server.instances[0].sync.feed
        let viewer = Viewer(userID: rita.id, isAdmin: false)
        try devices.flush()
        let held = try #require(try store.devices(userID: rita.id).first?.cursor)
        #expect(try feed.lag(viewer: viewer, cursor: held) == .caughtUp)

        let before = Date()
        _ = try server.task(by: otto, on: listing)
        _ = try server.task(by: otto, on: listing)
        _ = try server.task(by: otto)  // not rita's to see
        guard case .behind(let changes, let more, let oldest?) = try feed.lag(viewer: viewer, cursor: held) else {
            Issue.record("expected the device to be behind")
            return
        }
        #expect(changes == 2 && !more)
        #expect(oldest >= before.addingTimeInterval(-1) && oldest <= Date().addingTimeInterval(1))

        // The count stops at the bound (it keeps the console page cheap), and says there is more.
        try server.execute("""
            INSERT INTO tasks (title, declared_by, listing_id)
            SELECT 'bulk', \(otto.id), \(listing) FROM generate_series(1, \(SyncFeed.lagLimit))
            """)
        guard case .behind(let bounded, true, _) = try feed.lag(viewer: viewer, cursor: held) else {
            Issue.record("expected more changes waiting than the bound")
            return
        }
        #expect(bounded == SyncFeed.lagLimit)

        try server.execute("UPDATE listings SET assigned_staff = NULL WHERE id = \(listing)")
        #expect(try server.instances[0].sync.pruneHistory(keep: .seconds(0)) >= 1)
        #expect(try feed.lag(viewer: viewer, cursor: held) == .mustReset)
        #expect(try server.sync(rita, since: held).status == 410)
        #expect(try feed.lag(viewer: viewer, cursor: "not-a-cursor") == .unknown)
        try devices.flush()
        let device = try #require(try store.devices(userID: rita.id).first)
        #expect(device.resets == 1 && device.lastReset != nil)
    }

    /// A long-poll that parks and is answered later (a change arrived) moves the device's
    /// cursor in Sync health as an immediate answer does.
    @Test func aLongPollAnsweredLaterMovesTheDeviceCursor() throws {
        let server = try SyncTestServer(deviceFlushInterval: Self.hour)
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto, staff: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let devices = server.instances[0].sync.devices
        try devices.flush()
        let store = DeviceHealthStore(pool: server.pool)
        let held = try #require(try store.devices(userID: rita.id).first?.cursor)

        let answered = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let response = try? server.sync(rita, since: held, wait: 30)
            answered.withLock { $0 = response?.json?["next_since"] as? String }
            done.signal()
        }.start()
        let waiters = server.instances[0].sync.waiters
        let deadline = Date().addingTimeInterval(20)
        while waiters.count == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(waiters.count == 1, "the long-poll parked")
        _ = try server.task(by: otto, on: listing)
        #expect(done.wait(timeout: .now() + 30) == .success)
        let next = try #require(answered.withLock { $0 })
        #expect(next != held)
        try devices.flush()
        #expect(try store.devices(userID: rita.id).first?.cursor == next)
    }
}
