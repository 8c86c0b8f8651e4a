import Foundation
import Store
import Testing
import TestSupport

/// Sync cursors across a restore (docs/operators/backups.md, "Cursors after a restore"): a
/// device that synced before the restore gets 410 resync_required, never a silent gap, and
/// a full sync sees every restored row, whether the new cluster's transaction counter starts
/// below the old cursors (they would look like the future), above them, or below and passes
/// them later (then only the epoch tells them apart: they would look valid and skip rows).
@Suite struct RestoreCursorTests {
    static let password = "correct horse battery staple"

    /// A `dispatchd serve` on `url` and a signed-in admin.
    struct Served {
        let process: ServedDispatchd
        let client: TestHTTPClient
        let token: String

        init(_ url: String) throws {
            process = try ServedDispatchd(environment: BackupFixture.environment(url))
            client = TestHTTPClient(port: process.port, timeoutSeconds: 30)
            let body = Array(try JSONSerialization.data(withJSONObject: ["email": "chief@example.com", "password": RestoreCursorTests.password]))
            let login = try client.perform(method: "POST", path: "/v1/auth/login", headers: ["Content-Type": "application/json"], body: body)
            token = try #require(login.json?["access_token"] as? String, "\(String(decoding: login.body, as: UTF8.self))")
        }

        func sync(since: String? = nil) throws -> TestHTTPClient.Response {
            try client.perform(method: "GET", path: "/v1/sync" + (since.map { "?since=\($0)" } ?? ""),
                               headers: ["Authorization": "Bearer \(token)"])
        }

        func createTask(_ title: String) throws {
            let body = Array(try JSONSerialization.data(withJSONObject: ["title": title]))
            let response = try client.perform(method: "POST", path: "/v1/tasks",
                                              headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: body)
            #expect(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
        }

        static func titles(_ response: TestHTTPClient.Response) -> Set<String> {
            Set((response.json?["tasks"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String })
        }
    }

    @Test func cursorsFromBeforeARestoreAnswer410WhetherTheNewCounterStartsBelowOrAbove() throws {
        // The source's counter starts high, so a fresh cluster's is below it.
        let source = try ScratchCluster(nextTransactionID: 0x400_0000)
        let sourceURL = try source.createDatabase("dispatch")
        let environment = BackupFixture.environment(sourceURL)
        #expect(try CommandLineTests.runDispatchd(["migrate"], environment: environment).status == 0)
        let admin = try CommandLineTests.runDispatchd(["create-admin", "--email", "chief@example.com", "--name", "Chief",
                                                       "--password", Self.password], environment: environment)
        #expect(admin.status == 0, "\(admin.standardError.suffix(600))")

        let before = try Served(sourceURL)
        try before.createTask("in the backup")
        let first = try before.sync()
        let synced = try #require(first.json?["next_since"] as? String)
        #expect(Served.titles(first) == ["in the backup"])
        // A cursor as releases before epochs wrote it (no `ep`): still served while the data
        // never moved.
        let legacy = try #require(SyncCursor(decoding: synced)).encoded()
        #expect(try before.sync(since: legacy).status == 200)

        let file = try BackupFixture.directory().appendingPathComponent("cursors.tar")
        let backup = try CommandLineTests.runDispatchd(["backup", "--output", file.path], environment: environment)
        #expect(backup.status == 0, "\(backup.standardError.suffix(600))")
        // A device that syncs after the backup, before the disaster.
        try before.createTask("lost with the old cluster")
        let later = try before.sync(since: synced)
        #expect(Served.titles(later) == ["lost with the old cluster"])
        let syncedLater = try #require(later.json?["next_since"] as? String)
        before.process.kill()  // no graceful drain needed here
        let oldCursors = [synced, syncedLater, legacy]
        let highest = try #require(SyncCursor(decoding: syncedLater)?.since?.xmax)

        for (label, counter) in [("below", nil), ("above", UInt64(0x800_0000))] as [(String, UInt64?)] {
            let target = try ScratchCluster(nextTransactionID: counter)
            let url = try target.createDatabase("dispatch")
            let restore = try CommandLineTests.runDispatchd(["restore", file.path], environment: BackupFixture.environment(url))
            #expect(restore.status == 0, "\(label): \(restore.standardOutput)\(restore.standardError.suffix(600))")
            let next = try Self.counter(target)
            #expect(label == "below" ? next < highest : next > highest, "\(label): counter \(next), old cursors up to \(highest)")

            let after = try Served(url)
            try Self.expectResync(oldCursors, on: after, label)
            // The resync sees every restored row (their ids were re-stamped in this cluster),
            // and deltas continue from there.
            let full = try after.sync()
            #expect(Served.titles(full) == ["in the backup"], "\(label)")
            let fresh = try #require(full.json?["next_since"] as? String)
            try after.createTask("after the restore")
            #expect(Served.titles(try after.sync(since: fresh)) == ["after the restore"], "\(label)")
            after.process.kill()
            guard counter == nil else { continue }

            // The counter passes the old cursors: they no longer look like the future, and the
            // rows restored and written since sit below them.
            try target.moveCounter(to: 0x800_0000)
            #expect(try Self.counter(target) > highest)
            let passed = try Served(url)
            try Self.expectResync(oldCursors, on: passed, "below, then passed")
            #expect(Served.titles(try passed.sync()) == ["in the backup", "after the restore"])
            passed.process.kill()
        }
    }

    static func counter(_ cluster: ScratchCluster) throws -> UInt64 {
        let connection = try cluster.connect("dispatch")
        defer { connection.close() }
        let text = try connection.query("SELECT pg_current_xact_id()::text AS x").first?.decode("x", as: String.self)
        return try #require(text.flatMap { UInt64($0) })
    }

    static func expectResync(_ cursors: [String], on server: Served, _ label: String) throws {
        for cursor in cursors {
            let response = try server.sync(since: cursor)
            #expect(response.status == 410, "\(label): \(String(decoding: response.body, as: UTF8.self))")
            #expect(response.json?["code"] as? String == "resync_required", "\(label)")
        }
    }
}
