import Foundation
@testable import Postgres
import Testing
import TestSupport

/// The per-connection statement cache (`PostgresStatementCache`) against a real server:
/// statements really are prepared once per session, and every way the server can drop or
/// invalidate them (reconnect, DDL, DISCARD ALL, errors) still answers correctly.
@Suite struct StatementCacheTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase.create()
        try db.pool.execute("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)")
        try db.pool.execute("INSERT INTO items VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    }

    private func connect(capacity: Int = 256) throws -> PostgresConnection {
        try PostgresConnection(configuration: .init(conninfo: db.conninfo, statementCacheCapacity: capacity))
    }

    /// Server-side prepared statements of `connection`'s session that read `items`, asked
    /// with an unnamed statement so the probe itself does not touch the cache.
    private func preparedItemStatements(_ connection: PostgresConnection) throws -> [String] {
        let rows = try connection.unnamedQuery(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%FROM items%' ORDER BY statement COLLATE \"C\"",
            on: connection.liveHandle())
        return try rows.map { try $0.decode("statement", as: String.self) }
    }

    private func name(_ connection: PostgresConnection, id: Int) throws -> String? {
        try connection.query("SELECT name FROM items WHERE id = \(id)").first?.decode("name", as: String.self)
    }

    @Test func aQueryIsPreparedOnceAndReused() throws {
        let connection = try connect()
        #expect(try name(connection, id: 1) == "one")
        #expect(try name(connection, id: 2) == "two")
        #expect(try name(connection, id: 3) == "three")
        #expect(try preparedItemStatements(connection) == ["SELECT name FROM items WHERE id = $1"])
    }

    @Test func capacityZeroRunsEverythingUnnamed() throws {
        let connection = try connect(capacity: 0)
        #expect(try name(connection, id: 1) == "one")
        #expect(try preparedItemStatements(connection).isEmpty)
    }

    @Test func nonQueriesStayUnnamed() throws {
        let connection = try connect()
        try connection.withTransaction { connection in
            try connection.execute("SET LOCAL statement_timeout = '5s'")
            try connection.execute("INSERT INTO items VALUES (\(4), \("four"))")
        }
        let statements = try connection.unnamedQuery("SELECT statement FROM pg_prepared_statements", on: connection.liveHandle())
            .map { try $0.decode("statement", as: String.self) }
        #expect(statements.contains("INSERT INTO items VALUES ($1, $2)"))
        #expect(!statements.contains { $0.hasPrefix("BEGIN") || $0.hasPrefix("SET") || $0.hasPrefix("COMMIT") })
    }

    @Test func survivesReconnect() throws {
        let connection = try connect()
        #expect(try name(connection, id: 1) == "one")
        let pid = try #require(try connection.query("SELECT pg_backend_pid() AS pid").first?.decode("pid", as: Int32.self))
        let admin = try db.connect()
        try admin.execute("SELECT pg_terminate_backend(\(pid))")
        for _ in 0..<100 where try admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = \(pid)").count > 0 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try connection.reset()
        #expect(try name(connection, id: 2) == "two")
        #expect(try preparedItemStatements(connection) == ["SELECT name FROM items WHERE id = $1"])
    }

    @Test func discardAllIsNoticedAndStatementsArePreparedAgain() throws {
        let connection = try connect()
        #expect(try name(connection, id: 1) == "one")
        try connection.runTrustedScript("DISCARD ALL")
        #expect(try preparedItemStatements(connection).isEmpty)
        #expect(try name(connection, id: 2) == "two")
        #expect(try preparedItemStatements(connection) == ["SELECT name FROM items WHERE id = $1"])
    }

    @Test func resultTypeChangeOutsideATransactionIsRetriedTransparently() throws {
        let connection = try connect()
        let all: PostgresQuery = "SELECT * FROM items WHERE id = \(1)"
        #expect(try connection.query(all).first?.decode("name", as: String.self) == "one")
        try db.pool.execute("ALTER TABLE items ADD COLUMN note text DEFAULT 'added'")
        // The cached plan's result type changed ("cached plan must not change result type").
        let row = try #require(try connection.query(all).first)
        #expect(try row.decode("note", as: String.self) == "added")
    }

    @Test func resultTypeChangeInsideATransactionFailsOnceThenWorks() throws {
        let connection = try connect()
        let all: PostgresQuery = "SELECT * FROM items WHERE id = \(1)"
        _ = try connection.query(all)
        try db.pool.execute("ALTER TABLE items ADD COLUMN note text DEFAULT 'added'")
        let error = try #require(throws: PostgresError.self) {
            try connection.withTransaction { try $0.query(all) }
        }
        #expect(error.code == .featureNotSupported)
        #expect(connection.transactionStatus == .idle)
        let note = try connection.withTransaction { try $0.query(all).first?.decode("note", as: String.self) }
        #expect(note == "added")
    }

    @Test func ddlThatBreaksAStatementIsReportedAndNewSQLWorks() throws {
        let connection = try connect()
        #expect(try name(connection, id: 1) == "one")
        try db.pool.execute("ALTER TABLE items RENAME COLUMN name TO title")
        let error = try #require(throws: PostgresError.self) { try name(connection, id: 1) }
        #expect(error.code == .undefinedColumn)
        let title = try connection.query("SELECT title FROM items WHERE id = \(1)").first?.decode("title", as: String.self)
        #expect(title == "one")
    }

    @Test func statementsThatFailAreNotCachedAndErrorsLeaveTheCacheUsable() throws {
        let connection = try connect()
        #expect(throws: PostgresError.self) { try connection.query("SELECT nme FROM items WHERE id = \(1)") }
        // An execution error (division by zero) keeps a good statement cached and usable.
        let divide: (Int) -> PostgresQuery = { "SELECT 10 / \($0) AS q FROM items WHERE id = \(1)" }
        #expect(throws: PostgresError.self) { try connection.query(divide(0)) }
        #expect(try connection.query(divide(5)).first?.decode("q", as: Int.self) == 2)
        // An aborted transaction refuses to prepare; after ROLLBACK everything works again.
        #expect(throws: PostgresError.self) {
            try connection.withTransaction { connection in
                _ = try? connection.query("SELECT 1 / 0")
                try connection.query("SELECT id FROM items WHERE name = \("two")")
            }
        }
        #expect(try connection.query("SELECT id FROM items WHERE name = \("two")").first?.decode("id", as: Int.self) == 2)
        #expect(try preparedItemStatements(connection) ==
                ["SELECT 10 / $1 AS q FROM items WHERE id = $2", "SELECT id FROM items WHERE name = $1"])
    }

    @Test func leastRecentlyUsedStatementsAreEvictedAndDeallocated() throws {
        let connection = try connect(capacity: 2)
        #expect(try name(connection, id: 1) == "one")
        _ = try connection.query("SELECT id FROM items WHERE name = \("two")")
        #expect(try name(connection, id: 1) == "one")  // now the most recently used
        _ = try connection.query("SELECT count(*) AS n FROM items WHERE id > \(0)")  // evicts `id WHERE name`
        #expect(connection.statementCache.count == 2)
        connection.deallocateEvictedStatements()  // what the pool does when a connection comes back
        #expect(try preparedItemStatements(connection) ==
                ["SELECT count(*) AS n FROM items WHERE id > $1", "SELECT name FROM items WHERE id = $1"])
        #expect(try connection.query("SELECT id FROM items WHERE name = \("two")").first?.decode("id", as: Int.self) == 2)
    }

    @Test func concurrentUseThroughThePoolAnswersEveryQueryCorrectly() throws {
        let pool = PostgresPool(configuration: .init(connection: .init(conninfo: db.conninfo, statementCacheCapacity: 3), size: 3))
        defer { pool.close() }
        let failures = CacheTestFailures()
        let threads = (0..<8).map { thread in
            Thread {
                for index in 0..<150 {
                    let id = (thread + index) % 3 + 1
                    do {
                        // Five statement shapes over a capacity of three: hits, misses and evictions.
                        let value = try pool.withConnection { connection -> Int? in
                            switch index % 5 {
                            case 0: return try connection.query("SELECT id FROM items WHERE id = \(id)").first?.decode("id")
                            case 1: return try connection.query("SELECT id + 0 AS id FROM items WHERE id = \(id)").first?.decode("id")
                            case 2: return try connection.withTransaction { try $0.query("SELECT id FROM items WHERE id = \(id) FOR UPDATE").first?.decode("id") }
                            case 3: return try connection.query("SELECT id * 1 AS id FROM items WHERE id = \(id)").first?.decode("id")
                            default: return try connection.query("SELECT \(id)::int AS id").first?.decode("id")
                            }
                        }
                        if value != id { failures.add("thread \(thread) query \(index): \(String(describing: value)) != \(id)") }
                    } catch {
                        failures.add("thread \(thread) query \(index): \(error)")
                    }
                }
                failures.finished()
            }
        }
        threads.forEach { $0.start() }
        failures.waitForAll(threads.count)
        #expect(failures.messages.isEmpty)
        #expect(pool.stats.open <= 3)
    }
}

/// CacheTestFailures collected from worker threads.
private final class CacheTestFailures: @unchecked Sendable {
    private let condition = NSCondition()
    private var collected: [String] = []
    private var done = 0

    func add(_ message: String) {
        condition.lock(); collected.append(message); condition.unlock()
    }

    func finished() {
        condition.lock(); done += 1; condition.broadcast(); condition.unlock()
    }

    func waitForAll(_ count: Int) {
        condition.lock()
        while done < count { condition.wait() }
        condition.unlock()
    }

    var messages: [String] {
        condition.lock(); defer { condition.unlock() }
        return collected
    }
}
