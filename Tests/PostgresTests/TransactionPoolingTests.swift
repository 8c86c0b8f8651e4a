import Foundation
@testable import Postgres
import Testing
import TestSupport

/// Connections behind a real transaction-mode PgBouncer (`transactionPooled`): several
/// clients share one server session, so nothing session-scoped may be relied on. Each
/// transaction must still run with the connection's settings, and statements the code runs
/// "prepared" (the cache, `queryPrepared`'s fixed names) must not collide or go missing when
/// the next transaction lands on a session another client prepared in.
@Suite struct TransactionPoolingTests {
    let db: TestDatabase
    let bouncer: TestPgBouncer

    init() throws {
        db = try TestDatabase.create()
        // One server session: every client's every transaction runs on it.
        bouncer = try TestPgBouncer(cluster: db.cluster, serverConnections: 1)
    }

    private func connect(statementTimeout: Duration = .milliseconds(1500), zone: String = "Europe/Lisbon") throws -> PostgresConnection {
        try PostgresConnection(configuration: .init(conninfo: bouncer.conninfo(database: db.name), statementTimeout: statementTimeout,
                                                    timeZone: zone, transactionPooled: true))
    }

    @Test func everyTransactionRunsWithItsOwnConnectionsSettings() throws {
        let first = try connect(statementTimeout: .milliseconds(1500), zone: "Europe/Lisbon")
        let second = try connect(statementTimeout: .milliseconds(2500), zone: "Asia/Tokyo")
        for _ in 0..<3 {
            for (connection, timeout, zone) in [(first, "1500ms", "Europe/Lisbon"), (second, "2500ms", "Asia/Tokyo")] {
                let row = try connection.withTransaction { connection in
                    try connection.query("""
                        SELECT current_setting('statement_timeout') AS timeout, current_setting('TimeZone') AS zone,
                               current_setting('jit') AS jit, pg_backend_pid() AS pid
                        """).first
                }
                #expect(try row?.decode("timeout", as: String.self) == timeout)
                #expect(try row?.decode("zone", as: String.self) == zone)
                #expect(try row?.decode("jit", as: String.self) == "off")
            }
        }
        // Nothing leaked into the shared session: outside a transaction the server's defaults hold.
        let outside = try first.query("SELECT current_setting('statement_timeout') AS timeout").first
        #expect(try outside?.decode("timeout", as: String.self) == "0")
    }

    @Test func aTransactionIsCutAtItsStatementTimeout() throws {
        let connection = try connect(statementTimeout: .milliseconds(300))
        #expect(throws: PostgresError.self) {
            try connection.withTransaction { try $0.execute("SELECT pg_sleep(5)") }
        }
        // The cancelled transaction was rolled back and the session is usable again.
        #expect(try connection.withTransaction { try $0.query("SELECT 1 AS one").first?.decode("one", as: Int.self) } == 1)
    }

    @Test func preparedQueriesFromManyClientsShareOneServerSession() throws {
        let clients = try (0..<3).map { _ in try connect() }
        for round in 0..<4 {
            for (index, client) in clients.enumerated() {
                let value = round * 10 + index
                // The statement cache's path and a fixed-name statement (sync's "sync_snapshot" kind).
                #expect(try client.query("SELECT \(value)::int AS v").first?.decode("v", as: Int.self) == value)
                let named = try client.queryPrepared(name: "pooled_probe", "SELECT \(value)::int + 1 AS v")
                #expect(try named.first?.decode("v", as: Int.self) == value + 1)
                #expect(try client.withTransaction { try $0.query("SELECT \(value)::int AS v").first?.decode("v", as: Int.self) } == value)
            }
        }
    }
}
