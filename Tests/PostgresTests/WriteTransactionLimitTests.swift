import Foundation
import Postgres
import Testing
import TestSupport

/// `PostgresPool.limitWriteTransactions`: a write transaction older than the limit at COMMIT is
/// rolled back (the bound `/rest/v1` delta polling relies on); reads and quick writes are not.
@Suite struct WriteTransactionLimitTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase.create()
        try db.pool.execute("CREATE TABLE items (name text PRIMARY KEY)")
        db.pool.limitWriteTransactions(to: .milliseconds(300))
    }

    private func count() throws -> Int {
        try db.pool.query("SELECT count(*) AS n FROM items").first?.decode("n", as: Int.self) ?? -1
    }

    @Test func aWriteOlderThanTheLimitIsRolledBackNotCommitted() throws {
        let error = #expect(throws: PostgresError.self) {
            try db.pool.withTransaction { connection in
                try connection.execute("INSERT INTO items VALUES ('late')")
                try connection.execute("SELECT pg_sleep(0.5)")
            }
        }
        #expect(error?.code == .queryCanceled)
        #expect(try count() == 0)
        // The connection went back clean and is usable.
        _ = try db.pool.withTransaction { try $0.execute("INSERT INTO items VALUES ('quick')") }
        #expect(try count() == 1)
    }

    @Test func aLongReadOnlyTransactionStillCommits() throws {
        let value = try db.pool.withTransaction { connection in
            try connection.execute("SELECT pg_sleep(0.5)")
            return 1
        }
        #expect(value == 1)
    }

    @Test func withoutALimitALongWriteCommits() throws {
        db.pool.limitWriteTransactions(to: nil)
        try db.pool.withTransaction { connection in
            try connection.execute("INSERT INTO items VALUES ('slow')")
            try connection.execute("SELECT pg_sleep(0.5)")
        }
        #expect(try count() == 1)
    }
}
