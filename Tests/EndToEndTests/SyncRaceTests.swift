import Foundation
import Postgres
import Testing

/// The classic miss of `updated_at > last_sync` polling, reproduced with real locks: a write
/// blocked mid-transaction commits after a later write was already synced past.
@Suite struct SyncRaceTests {
    /// What a background thread reports back.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var errors: [String] = []
        func fail(_ error: any Error) { lock.withLock { errors.append(String(describing: error)) } }
        var failures: [String] { lock.withLock { errors } }
    }

    @Test func writeBlockedMidTransactionArrivesInTheSyncAfterALaterCommitWasSyncedPast() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let locked = try server.task(by: rita), early = try server.task(by: rita), later = try server.task(by: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)

        // A separate connection holds a row lock...
        let locker = try server.database.connect()
        defer { locker.close() }
        try locker.execute("BEGIN")
        try locker.query("SELECT id FROM tasks WHERE id = \(locked) FOR UPDATE")
        // ...so this transaction, which already wrote (and so holds an early xid), blocks.
        let writer = try server.database.connect()
        defer { writer.close() }
        try writer.execute("BEGIN")
        try writer.execute("UPDATE tasks SET title = 'early' WHERE id = \(early)")
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                try writer.execute("UPDATE tasks SET title = 'blocked' WHERE id = \(locked)")
                try writer.execute("COMMIT")
            } catch { outcome.fail(error) }
            finished.signal()
        }
        try waitUntil("the writer waits for the row lock") {
            try server.pool.query("""
                SELECT count(*) AS waiting FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'
                """)[0].decode("waiting", as: Int.self) == 1
        }

        // Meanwhile a later transaction commits and the client syncs past it.
        try server.execute("UPDATE tasks SET title = 'later' WHERE id = \(later)")
        try replica.syncToEnd(server, as: rita)
        #expect(replica.rows["tasks"]?[later.lowercased]?["title"] as? String == "later")
        #expect(replica.rows["tasks"]?[early.lowercased]?["title"] as? String == "a task")

        try locker.execute("COMMIT")
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(outcome.failures.isEmpty)
        // The scenario is the real one: the blocked write's updated_at (its transaction's
        // start) is older than the later write that was already synced past.
        let stamps = try server.pool.query("""
            SELECT (SELECT updated_at FROM tasks WHERE id = \(locked)) < (SELECT updated_at FROM tasks WHERE id = \(later)) AS older
            """)
        #expect(try stamps[0].decode("older", as: Bool.self))

        try replica.syncToEnd(server, as: rita)
        #expect(replica.rows["tasks"]?[locked.lowercased]?["title"] as? String == "blocked")
        #expect(replica.rows["tasks"]?[early.lowercased]?["title"] as? String == "early")
        #expect(replica.state == (try server.expectedState(for: rita)))
    }
}

/// Polls `condition` every 10 ms; throws after `seconds` (a safety net, not a timing check).
func waitUntil(_ what: String, seconds: Double = 30, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw WaitError.timedOut(what) }
        Thread.sleep(forTimeInterval: 0.01)
    }
}

enum WaitError: Error { case timedOut(String) }
