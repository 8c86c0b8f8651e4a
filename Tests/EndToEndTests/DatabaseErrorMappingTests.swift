@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import HTTPServer
import Postgres
import Testing
import TestSupport

@Suite struct DatabaseErrorMappingTests {
    @Test(arguments: [
        (PostgresError(kind: .connection, message: "server closed the connection"), 503, "database_unavailable"),
        (PostgresError(kind: .poolTimeout, message: "no connection"), 503, "database_unavailable"),
        (PostgresError(kind: .server, code: .adminShutdown, message: "terminating"), 503, "database_unavailable"),
        (PostgresError(kind: .server, code: .init("08006"), message: "connection failure"), 503, "database_unavailable"),
        (PostgresError(kind: .server, code: .serializationFailure, message: "could not serialize"), 503, "transaction_conflict"),
        (PostgresError(kind: .server, code: .deadlockDetected, message: "deadlock"), 503, "transaction_conflict"),
        (PostgresError(kind: .server, code: .queryCanceled, message: "statement timeout"), 503, "database_timeout"),
        (PostgresError(kind: .server, code: .uniqueViolation, message: "duplicate key value violates unique constraint \"users_email_lower_key\""), 409, "conflict"),
        (PostgresError(kind: .server, code: .foreignKeyViolation, message: "insert or update on table \"tasks\""), 422, "invalid_reference"),
        (PostgresError(kind: .server, code: .checkViolation, message: "violates check constraint"), 422, "validation_failed"),
        (PostgresError(kind: .server, code: .init("22003"), message: "numeric field overflow"), 422, "invalid_value"),
        (PostgresError(kind: .server, code: .syntaxError, message: "syntax error at or near \"SELEC\""), 500, "internal_error"),
        (PostgresError(kind: .decoding, message: "cannot decode column"), 500, "internal_error"),
    ])
    func postgresErrorMapsToStatusAndCodeWithoutLeakingServerText(error: PostgresError, status: Int, code: String) {
        let mapped = DatabaseErrorMapping.httpError(for: error)
        #expect(mapped.status.code == status)
        #expect(mapped.code == code)
        #expect(!mapped.message.contains(error.message))
        #expect(!mapped.message.localizedCaseInsensitiveContains("constraint"))
        #expect((mapped.extraHeaders["Retry-After"] != nil) == (status == 503))
    }

    /// A write whose connection was lost after it was sent may be in the database: never the
    /// "nothing happened" answer. A read changed nothing either way, so it keeps that answer.
    @Test func aLostCommitIsOutcomeUnknownForWritesAndUnavailableForReads() throws {
        var lost = PostgresError(kind: .connection, message: "server closed the connection unexpectedly")
        lost.outcomeUnknown = true
        let write = try #require(DatabaseErrorMapping.map(DatabaseErrorMapping.forMethod(lost, safe: false)) as? HTTPError)
        #expect(write.status.code == 503)
        #expect(write.code == "outcome_unknown")
        #expect(write.extraHeaders["Retry-After"] != nil)
        let read = try #require(DatabaseErrorMapping.map(DatabaseErrorMapping.forMethod(lost, safe: true)) as? HTTPError)
        #expect(read.status.code == 503)
        #expect(read.code == "database_unavailable")
    }

    @Test func duplicateEmailDifferingOnlyInCaseFromRealDatabaseMapsTo409() throws {
        let database = try TestDatabase.create()
        try database.pool.execute("INSERT INTO users (name, email) VALUES ('A', 'Someone@Example.com')")
        let error = #expect(throws: PostgresError.self) {
            try database.pool.execute("INSERT INTO users (name, email) VALUES ('B', 'someone@example.COM')")
        }
        #expect(error.map { DatabaseErrorMapping.httpError(for: $0).status.code } == 409)
    }

    @Test func taskWithUnknownDeclarerFromRealDatabaseMapsTo422() throws {
        let database = try TestDatabase.create()
        let error = #expect(throws: PostgresError.self) {
            try database.pool.execute("INSERT INTO tasks (title, declared_by) VALUES ('t', gen_random_uuid())")
        }
        #expect(error.map { DatabaseErrorMapping.httpError(for: $0).status.code } == 422)
    }
}
