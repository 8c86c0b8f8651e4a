import Foundation
import Postgres
import Testing
import TestSupport

/// Server errors carry SQLSTATE and diagnostic fields.
@Suite struct ErrorMappingTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase.create()
        try db.pool.withConnection { connection in
            try connection.runTrustedScript("""
                CREATE TABLE accounts (
                    id integer PRIMARY KEY,
                    email text NOT NULL CONSTRAINT accounts_email_key UNIQUE,
                    age integer CONSTRAINT accounts_age_check CHECK (age >= 0)
                );
                CREATE TABLE sessions (account_id integer NOT NULL REFERENCES accounts (id));
                """)
        }
    }

    @Test func uniqueViolationReportsCodeConstraintAndTable() throws {
        try db.pool.execute("INSERT INTO accounts (id, email) VALUES (1, \("a@example.com"))")
        let error = try #require(throws: PostgresError.self) {
            try db.pool.execute("INSERT INTO accounts (id, email) VALUES (2, \("a@example.com"))")
        }
        #expect(error.kind == .server)
        #expect(error.code == .uniqueViolation)
        #expect(error.constraint == "accounts_email_key")
        #expect(error.table == "accounts")
        #expect(error.detail?.contains("a@example.com") == true)
        #expect(!error.isConnectionError)
    }

    @Test func checkViolationReportsConstraint() throws {
        let error = try #require(throws: PostgresError.self) {
            try db.pool.execute("INSERT INTO accounts (id, email, age) VALUES (1, \("b@example.com"), \(-1))")
        }
        #expect(error.code == .checkViolation)
        #expect(error.constraint == "accounts_age_check")
    }

    @Test func notNullViolationReportsColumn() throws {
        let email: String? = nil
        let error = try #require(throws: PostgresError.self) {
            try db.pool.execute("INSERT INTO accounts (id, email) VALUES (1, \(email))")
        }
        #expect(error.code == .notNullViolation)
        #expect(error.column == "email")
    }

    @Test func foreignKeyViolationIsMapped() throws {
        let error = try #require(throws: PostgresError.self) {
            try db.pool.execute("INSERT INTO sessions (account_id) VALUES (\(42))")
        }
        #expect(error.code == .foreignKeyViolation)
    }

    @Test func syntaxErrorIsMapped() throws {
        let error = try #require(throws: PostgresError.self) { try db.pool.execute("SELEC 1") }
        #expect(error.code == .syntaxError)
        #expect(error.kind == .server)
        #expect(error.message.contains("syntax error"))
    }

    @Test func undefinedTableIsMapped() throws {
        let error = try #require(throws: PostgresError.self) { try db.pool.query("SELECT * FROM nowhere") }
        #expect(error.code == .undefinedTable)
    }

    @Test func statementTimeoutIsQueryCanceled() throws {
        var configuration = PostgresConnection.Configuration(conninfo: db.conninfo)
        configuration.statementTimeout = .milliseconds(100)
        let connection = try PostgresConnection(configuration: configuration)
        let error = try #require(throws: PostgresError.self) { try connection.execute("SELECT pg_sleep(5)") }
        #expect(error.code == .queryCanceled)
        #expect(try connection.query("SELECT 1 AS one").first?.decode("one", as: Int.self) == 1)
    }

    @Test func sessionSettingsAreApplied() throws {
        let row = try #require(try db.pool.query("""
            SELECT current_setting('TimeZone') AS tz, current_setting('statement_timeout') AS st,
                   current_setting('idle_in_transaction_session_timeout') AS it, current_setting('application_name') AS app
            """).first)
        #expect(try row.decode("tz", as: String.self) == "UTC")
        #expect(try row.decode("st", as: String.self) == "30s")
        #expect(try row.decode("it", as: String.self) == "1min")
        #expect(try row.decode("app", as: String.self) == "dispatchd")
    }

    @Test(arguments: [
        ("08006", true), ("08001", true), ("57P01", true), ("57P03", true), ("23505", false), ("57014", false),
    ])
    func connectionClassCodesAreConnectionErrors(code: String, expected: Bool) {
        #expect(PostgresError.Code(code).isConnectionError == expected)
        #expect(PostgresError(kind: .server, code: PostgresError.Code(code), message: "x").isConnectionError == expected)
    }

    @Test func connectingToMissingServerFailsWithConnectionKind() throws {
        let error = try #require(throws: PostgresError.self) {
            try PostgresConnection("host=/nonexistent-socket-dir port=5999 user=postgres dbname=postgres")
        }
        #expect(error.kind == .connection)
        #expect(error.isConnectionError)
    }

    @Test func urlConninfoWithUnixSocketHostConnects() throws {
        var urls = [db.conninfo, db.url]
        if let server = db.cluster.embedded {
            let encodedHost = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
            urls = [
                "postgres://postgres@\(encodedHost):\(server.configuration.port)/\(db.name)",
                "postgresql:///\(db.name)?host=\(server.socketDirectory)&port=\(server.configuration.port)&user=postgres",
            ]
        }
        for url in urls {
            let connection = try PostgresConnection(url)
            #expect(try connection.query("SELECT current_database() AS d").first?.decode("d", as: String.self) == db.name)
        }
    }
}
