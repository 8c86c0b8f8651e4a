import Postgres
import Testing
import TestSupport

private struct Boom: Error {}

@Suite struct TransactionTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase.create()
        try db.pool.execute("CREATE TABLE items (name text PRIMARY KEY)")
    }

    private func count() throws -> Int {
        try db.pool.query("SELECT count(*) AS n FROM items").first?.decode("n", as: Int.self) ?? -1
    }

    @Test func successfulBodyCommits() throws {
        let value = try db.pool.withTransaction { connection in
            try connection.execute("INSERT INTO items VALUES (\("a"))")
            return 7
        }
        #expect(value == 7)
        #expect(try count() == 1)
    }

    @Test func throwingBodyRollsBack() throws {
        #expect(throws: Boom.self) {
            try db.pool.withTransaction { connection in
                try connection.execute("INSERT INTO items VALUES (\("a"))")
                throw Boom()
            }
        }
        #expect(try count() == 0)
    }

    @Test func serverErrorInBodyRollsBackEarlierStatements() throws {
        #expect(throws: PostgresError.self) {
            try db.pool.withTransaction { connection in
                try connection.execute("INSERT INTO items VALUES (\("a"))")
                try connection.execute("INSERT INTO items VALUES (\("a"))")
            }
        }
        #expect(try count() == 0)
    }

    @Test func swallowedErrorMakesCommitThrowInsteadOfSilentRollback() throws {
        let error = try #require(throws: PostgresError.self) {
            try db.pool.withTransaction { connection in
                try connection.execute("INSERT INTO items VALUES (\("a"))")
                _ = try? connection.execute("INSERT INTO items VALUES (\("a"))")
            }
        }
        #expect(error.code == .inFailedSQLTransaction)
        #expect(try count() == 0)
    }

    @Test func isolationLevelIsApplied() throws {
        let level = try db.pool.withTransaction(isolation: .serializable) { connection in
            try connection.query("SHOW transaction_isolation").first?.decode(0, as: String.self)
        }
        #expect(level == "serializable")
    }

    @Test func connectionReturnedMidTransactionIsRolledBackBeforeReuse() throws {
        let pool = db.makePool(size: 1)
        defer { pool.close() }
        try pool.withConnection { connection in
            try connection.execute("BEGIN")
            try connection.execute("INSERT INTO items VALUES (\("leaked"))")
        }
        try pool.withConnection { connection in
            #expect(connection.transactionStatus == .idle)
            _ = try? connection.execute("BEGIN")
            _ = try? connection.execute("SELECT 1/0")
            #expect(connection.transactionStatus == .inFailedTransaction)
        }
        let (status, leaked) = try pool.withConnection { connection in
            (connection.transactionStatus, try connection.query("SELECT count(*) AS n FROM items").first?.decode("n", as: Int.self))
        }
        #expect(status == .idle)
        #expect(leaked == 0)
    }

    @Test func nestedTransactionIsRejected() throws {
        let error = try #require(throws: PostgresError.self) {
            try db.pool.withTransaction { connection in
                try connection.execute("INSERT INTO items VALUES (\("outer"))")
                try connection.withTransaction { _ in }
            }
        }
        #expect(error.kind == .misuse)
        #expect(try count() == 0)
    }

    @Test func serializationFailureIsRetriedUpToMaxAttempts() throws {
        let attempts = Counter()
        let result = try db.pool.withTransaction(isolation: .serializable, maxAttempts: 3) { connection in
            try connection.execute("INSERT INTO items VALUES (\("retried"))")
            if attempts.increment() == 1 {
                throw PostgresError(kind: .server, code: .serializationFailure, message: "simulated")
            }
            return "done"
        }
        #expect(result == "done")
        #expect(attempts.value == 2)
        #expect(try count() == 1)
    }

    @Test func realWriteSkewSerializationFailureIsRetried() throws {
        let other = try db.connect()
        defer { other.close() }
        let attempts = Counter()
        try db.pool.withTransaction(isolation: .serializable, maxAttempts: 3) { connection in
            let attempt = attempts.increment()
            _ = try connection.query("SELECT count(*) FROM items WHERE name LIKE 'x%'")
            if attempt == 1 {
                // A concurrent serializable transaction reads the same predicate and commits
                // a conflicting insert first: classic write skew.
                try other.withTransaction(isolation: .serializable) { other in
                    _ = try other.query("SELECT count(*) FROM items WHERE name LIKE 'x%'")
                    try other.execute("INSERT INTO items VALUES (\("x-other"))")
                }
            }
            try connection.execute("INSERT INTO items VALUES (\("x-mine"))")
        }
        #expect(attempts.value == 2)
        #expect(try count() == 2)
    }

    @Test func serializationFailureIsNotRetriedByDefault() throws {
        let attempts = Counter()
        let error = try #require(throws: PostgresError.self) {
            try db.pool.withTransaction { _ in
                attempts.increment()
                throw PostgresError(kind: .server, code: .serializationFailure, message: "simulated")
            }
        }
        #expect(error.code == .serializationFailure)
        #expect(attempts.value == 1)
    }
}

private final class Counter: @unchecked Sendable {
    private var count = 0

    @discardableResult
    func increment() -> Int {
        count += 1
        return count
    }

    var value: Int { count }
}
