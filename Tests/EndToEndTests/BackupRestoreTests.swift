import Foundation
import Postgres
import Synchronization
import Testing
import TestSupport

/// `dispatchd backup` and `dispatchd restore` end to end: real pg_dump and pg_restore, a
/// second real cluster, the files as operators get them.
@Suite struct BackupRestoreTests {
    /// Tables a restore rewrites on purpose (a new sync epoch: migrations/0023).
    static let rewrittenByRestore: Set<String> = ["sync_access_changes", "sync_horizon", "dispatch_identity"]
    /// Tables updated in place after the backup's snapshot, with no transaction id to select the
    /// snapshot's version by: compared by row count only. The syncing clients keep updating
    /// their device health; the backup's own run (`backup_runs`) is recorded before the
    /// snapshot and finished after it.
    static let updatedInPlaceBySync: Set<String> = ["sync_device_health", "backup_runs"]

    @Test func backupTakenWhileWritersAndSyncingClientsRunRestoresEveryRowIntoANewCluster() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), sam = try server.member("sam")
        _ = try server.member("ada", admin: true)
        let listing = try server.listing(owner: rita, staff: sam)
        for index in 0..<30 {
            let task = try server.task(by: rita, on: listing)
            _ = try server.note(on: "task", task, by: sam)
            if index % 3 == 0 { _ = try server.subtask(on: "task", task) }
        }
        let picture = (0..<4096).map { String(format: "%02x", ($0 * 7) & 0xff) }.joined()
        try server.execute("INSERT INTO avatars (hash, content_type, bytes) VALUES (\(String(repeating: "ab", count: 32)), 'image/png', decode(\(picture), 'hex'))")

        // Writers insert (never update: the comparison below selects the source's rows by the
        // backup's snapshot) and clients follow the feed, all while the backup runs.
        let running = Mutex(true), written = Mutex(0), syncs = Mutex(0)
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread.detachNewThread { [group] in
                defer { group.leave() }
                while running.withLock({ $0 }) {
                    if (try? server.task(by: rita)) != nil { written.withLock { $0 += 1 } }
                }
            }
        }
        for member in [rita, sam] {
            group.enter()
            Thread.detachNewThread { [group] in
                defer { group.leave() }
                var since: String?
                while running.withLock({ $0 }) {
                    guard let response = try? server.sync(member, since: since), response.status == 200 else { continue }
                    since = response.json?["next_since"] as? String
                    syncs.withLock { $0 += 1 }
                }
            }
        }
        try Self.waitUntil { written.withLock { $0 } >= 5 && syncs.withLock { $0 } >= 2 }
        let file = try BackupFixture.directory().appendingPathComponent("under-load.tar")
        let backup = try CommandLineTests.runDispatchd(["backup", "--output", file.path],
                                                       environment: BackupFixture.environment(try CommandLineDatabaseTests.url(for: server.database)))
        let writtenAtEnd = written.withLock { $0 }
        try Self.waitUntil { written.withLock { $0 } >= writtenAtEnd + 3 }
        running.withLock { $0 = false }
        group.wait()
        #expect(backup.status == 0, "\(backup.standardError.suffix(800))")
        #expect(backup.standardOutput.split(separator: "\n").last.map(String.init) == file.path)

        let manifest = try BackupFixture.manifest(of: file)
        let counts = try #require(manifest["row_counts"] as? [String: Int])
        let snapshot = try #require(manifest["snapshot"] as? String)
        let source = try server.database.connect()
        defer { source.close() }
        let tasksNow: Int = try #require(try source.query("SELECT count(*)::int8 AS n FROM tasks").first?.decode("n"))
        #expect((counts["tasks"] ?? 0) > 30, "writes before the backup are in it")
        #expect((counts["tasks"] ?? 0) < tasksNow, "writes after the backup's snapshot are not")

        let target = try ScratchCluster()
        let restore = try CommandLineTests.runDispatchd(["restore", file.path],
                                                        environment: BackupFixture.environment(try target.createDatabase("restored")))
        #expect(restore.status == 0, "\(restore.standardOutput)\(restore.standardError.suffix(800))")
        let restored = try target.connect("restored")
        defer { restored.close() }
        for table in counts.keys.sorted() where !Self.rewrittenByRestore.contains(table) {
            let copy = try BackupFixture.rows(of: table, on: restored)
            if !Self.updatedInPlaceBySync.contains(table) {
                #expect(copy == (try BackupFixture.rows(of: table, on: source, visibleIn: snapshot)), "table \(table)")
            }
            #expect(copy.count == counts[table], "table \(table)")
        }
        // The backup's own run was recorded before its snapshot ("running" in the copy): the
        // restore records that it ended well.
        let run: String? = try restored.query("SELECT state FROM backup_runs WHERE file = \(file.lastPathComponent)").first?.decode("state")
        #expect(run == "succeeded")
        #expect(counts["avatars"] == 1)
        #expect((counts["auth_sessions"] ?? 0) >= 3)
        let epochs = try [source, restored].map { try $0.query("SELECT epoch, generation FROM dispatch_identity").first }
        #expect(try epochs[0]?.decode("epoch", as: String.self) != epochs[1]?.decode("epoch", as: String.self))
        #expect(try epochs[1]?.decode("generation", as: Int.self) == 1)
    }

    @Test func verifyProvesAGoodFileAndDamagedOnesAreRefusedWithAClearMessage() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        for _ in 0..<5 { _ = try server.task(by: rita) }
        let environment = BackupFixture.environment(try CommandLineDatabaseTests.url(for: server.database))
        let directory = try BackupFixture.directory()
        let good = directory.appendingPathComponent("good.tar")
        let backup = try CommandLineTests.runDispatchd(["backup", "--output", good.path], environment: environment)
        #expect(backup.status == 0, "\(backup.standardError.suffix(600))")

        let verified = try CommandLineTests.runDispatchd(["restore", "--verify", good.path], environment: environment)
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError.suffix(600))")
        #expect(verified.standardOutput.contains("verified: restored into scratch database"))
        let scratch: Int = try #require(try server.pool.query("SELECT count(*)::int8 AS n FROM pg_database WHERE datname LIKE 'dispatch_verify_%'").first?.decode("n"))
        #expect(scratch == 0, "the scratch database is dropped")

        var bytes = try [UInt8](Data(contentsOf: good))
        let flipped = directory.appendingPathComponent("flipped.tar")
        // One bit in the middle of database.dump (pg_dump's custom format starts "PGDMP").
        let dumpStart = try #require(bytes.indices.first { bytes[$0..<min($0 + 5, bytes.count)].elementsEqual(Array("PGDMP".utf8)) })
        let members = try #require(try BackupFixture.manifest(of: good)["members"] as? [[String: Any]])
        let dumpBytes = try #require(members.last?["bytes"] as? Int)
        bytes[dumpStart + dumpBytes / 2] ^= 0x01
        try Data(bytes).write(to: flipped)
        let truncated = directory.appendingPathComponent("truncated.tar")
        try Data(bytes.prefix(bytes.count / 2)).write(to: truncated)
        let garbage = directory.appendingPathComponent("garbage.tar")
        try Data("not a backup at all\n".utf8).write(to: garbage)
        for (file, message) in [(flipped, "is damaged: database.dump"), (truncated, "damaged"), (garbage, "damaged or not a Dispatch backup")] {
            for arguments in [["restore", "--verify", file.path], ["restore", file.path]] {
                let result = try CommandLineTests.runDispatchd(arguments, environment: environment)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.standardError.contains(message), "\(arguments): \(result.standardError.suffix(600))")
            }
        }

        // A database that holds data (here: a migrated one) is refused unless --force.
        let occupied = try TestDatabase.create()
        occupied.pool.close()
        let refused = try CommandLineTests.runDispatchd(["restore", good.path],
                                                        environment: BackupFixture.environment(try CommandLineDatabaseTests.url(for: occupied)))
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("is not empty"), "\(refused.standardError.suffix(600))")
        #expect(refused.standardError.contains("--force"))
        // --force replaces it: the backup's rows, a new epoch.
        let forced = try CommandLineTests.runDispatchd(["restore", "--force", good.path],
                                                       environment: BackupFixture.environment(try CommandLineDatabaseTests.url(for: occupied)))
        #expect(forced.status == 0, "\(forced.standardOutput)\(forced.standardError.suffix(600))")
        let replaced = try occupied.connect()
        defer { replaced.close() }
        #expect(try BackupFixture.rows(of: "tasks", on: replaced).count == 5)
        #expect(try replaced.query("SELECT generation FROM dispatch_identity").first?.decode("generation", as: Int.self) == 1)
    }

    static func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestSupportError("condition not met within \(timeout)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
