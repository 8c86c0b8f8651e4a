import EmbeddedPostgres
import Foundation
import Postgres
import Testing

/// Fault behaviour against a dedicated PostgreSQL that the test stops and starts: the server
/// must answer quickly and truthfully while the database is gone, and recover by itself.
@Suite struct DatabaseOutageTests {
    @Test func readyzWhenDatabaseStopsAnswers503WithRetryAfterAndRecoversWhenItReturns() throws {
        let directory = "/tmp/dispatch-e2e-outage-" + String(UInt32.random(in: .min ... .max), radix: 16)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try EmbeddedPostgres(configuration: .init(dataDirectory: directory, fsync: false))
        try database.start()
        defer { try? database.stop() }

        let pool = PostgresPool(configuration: .init(
            connection: .init(conninfo: database.conninfo(database: "postgres"), connectTimeout: .seconds(2)),
            size: 2, acquisitionTimeout: .seconds(2)
        ))
        defer { pool.close() }
        try Migrator(directoryPath: ProjectPaths.migrations).migrate(pool: pool)
        let server = try RunningServer(pool: pool, migrationsDirectory: ProjectPaths.migrations)
        defer { server.stop() }

        #expect(try server.client.get("/readyz").status == 200)

        try database.stop()
        // The client's own timeout (15 s) is the safety net; a hang would fail here, not block.
        let down = try server.client.get("/readyz")
        #expect(down.status == 503)
        #expect(down.header("Retry-After") == "1")
        #expect(down.json?["code"] as? String == "not_ready")
        #expect(try server.client.get("/healthz").status == 200)

        try database.start()
        var recovered = try server.client.get("/readyz")
        for _ in 0..<50 where recovered.status != 200 {
            Thread.sleep(forTimeInterval: 0.1)
            recovered = try server.client.get("/readyz")
        }
        #expect(recovered.status == 200)
        #expect(recovered.json?["status"] as? String == "ready")
    }
}
