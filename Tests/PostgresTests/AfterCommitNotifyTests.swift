import Foundation
import Postgres
import Testing
import TestSupport

/// The sync wake-up outside the writing transaction (migrations/0026,
/// PostgresConnection+AfterCommitNotify.swift). Every check ends with a listener fence: it
/// delivers every notification of a transaction committed before it was requested, so both
/// "arrived" and "did not arrive" are decided without waiting for time to pass.
@Suite struct AfterCommitNotifyTests {
    let db: TestDatabase
    /// A synced table's statement trigger fires even when no row matches: a write with no data.
    static let write: PostgresQuery = "UPDATE tasks SET title = title WHERE false"

    init() throws {
        db = try TestDatabase.create()
    }

    private func listen(_ inbox: Inbox) throws -> PostgresListener {
        let listener = try PostgresListener(configuration: PostgresConnection.Configuration(conninfo: db.conninfo),
                                            channels: [TestDatabase.syncChannel],
                                            onNotification: { channel, payload in inbox.add(channel, payload) })
        listener.start()
        #expect(listener.waitUntilListening(timeout: .seconds(10)))
        return listener
    }

    /// How many notifications have arrived once everything committed so far is delivered.
    private func delivered(_ listener: PostgresListener, _ inbox: Inbox) throws -> Int {
        guard listener.fence(timeout: .seconds(10)) != nil else { throw FenceFailed() }
        return inbox.messages.count
    }

    /// dispatchd's connections: a write has woken the listeners by the time the call returns,
    /// once per transaction, and a rolled-back write wakes nobody.
    @Test func aServerWriteIsNotifiedBeforeTheCallReturns() throws {
        let inbox = Inbox()
        let listener = try listen(inbox)
        defer { listener.stop() }

        try db.pool.execute(Self.write)
        #expect(try delivered(listener, inbox) == 1)

        try db.pool.withTransaction { connection in
            try connection.execute(Self.write)
            try connection.execute("UPDATE notes SET content = content WHERE false")
        }
        #expect(try delivered(listener, inbox) == 2)

        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try db.pool.withTransaction { connection in
                try connection.execute(Self.write)
                throw Abandon()
            }
        }
        #expect(try delivered(listener, inbox) == 2)
        #expect(inbox.messages.allSatisfy { $0 == [TestDatabase.syncChannel, ""] })
    }

    /// The writing transaction itself notifies only when the session has not promised to:
    /// any other writer (psql, a restore, a test's SQL) keeps the in-transaction NOTIFY.
    @Test func theWritingTransactionNotifiesOnlyWithoutTheSessionsPromise() throws {
        let inbox = Inbox()
        let listener = try listen(inbox)
        defer { listener.stop() }
        // A plain session (no after-commit channels): it would not send anything itself.
        let plain = try db.connect()
        defer { plain.close() }

        try plain.execute(Self.write)
        #expect(try delivered(listener, inbox) == 1)

        // The promise made by hand, which this session does not keep: nobody is woken, so the
        // trigger really left the NOTIFY out of the transaction.
        try plain.execute("SET dispatch.notify_after_commit = on")
        try plain.execute(Self.write)
        #expect(try delivered(listener, inbox) == 1)

        // A session that would not hear the trigger's notice is not trusted with the promise.
        try plain.execute("SET client_min_messages = warning")
        try plain.execute(Self.write)
        #expect(try delivered(listener, inbox) == 2)
    }
}

private struct FenceFailed: Error {}
