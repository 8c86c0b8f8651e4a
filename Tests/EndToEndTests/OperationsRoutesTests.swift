import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct OperationsRoutesTests {
    @Test func healthzAlwaysAnswersOkWithoutTouchingTheDatabase() throws {
        let database = try TestDatabase.create()
        let server = try RunningServer(pool: database.pool, migrationsDirectory: ProjectPaths.migrations)
        defer { server.stop() }
        let response = try server.client.get("/healthz")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.json?["status"] as? String == "ok")
    }

    @Test func readyzOnMigratedDatabaseAnswersReady() throws {
        let database = try TestDatabase.create()
        let server = try RunningServer(pool: database.pool, migrationsDirectory: ProjectPaths.migrations)
        defer { server.stop() }
        let response = try server.client.get("/readyz")
        #expect(response.status == 200)
        #expect(response.json?["status"] as? String == "ready")
    }

    @Test func readyzOnUnmigratedDatabaseAnswers503NotReadyWithRetryAfter() throws {
        let database = try TestDatabase.create(migrations: nil)
        let server = try RunningServer(pool: database.pool, migrationsDirectory: ProjectPaths.migrations)
        defer { server.stop() }
        let response = try server.client.get("/readyz")
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "1")
        #expect(response.json?["code"] as? String == "not_ready")
        #expect(response.json?["message"] is String)
    }

    @Test func readyzOnPartlyMigratedDatabaseAnswers503() throws {
        let database = try TestDatabase.create(migrations: nil)
        // Apply only the first migration file: the schema is behind this build.
        let partial = FileManager.default.temporaryDirectory.appendingPathComponent("partial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: partial) }
        let first = try #require(try FileManager.default.contentsOfDirectory(atPath: ProjectPaths.migrations).sorted().first)
        try FileManager.default.copyItem(atPath: ProjectPaths.migrations + "/" + first, toPath: partial.path + "/" + first)
        try Migrator(directory: partial).migrate(pool: database.pool)

        let server = try RunningServer(pool: database.pool, migrationsDirectory: ProjectPaths.migrations)
        defer { server.stop() }
        #expect(try server.client.get("/readyz").status == 503)
    }

    /// Rolling upgrades: an instance still on the previous release stays in rotation after the
    /// first new one migrated (expand/contract, docs/operators/upgrades.md; RollingUpgradeTests).
    @Test func readyzOnDatabaseAheadOfTheCodeStaysReady() throws {
        let database = try TestDatabase.create()
        try database.pool.execute("INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'from_the_future', 'x')")
        let server = try RunningServer(pool: database.pool, migrationsDirectory: ProjectPaths.migrations)
        defer { server.stop() }
        #expect(try server.client.get("/readyz").status == 200)
    }

    @Test func unknownPathAnswers404InTheErrorShape() throws {
        let database = try TestDatabase.create()
        let server = try RunningServer(pool: database.pool, migrationsDirectory: ProjectPaths.migrations)
        defer { server.stop() }
        let response = try server.client.get("/nope")
        #expect(response.status == 404)
        let body = try #require(response.json)
        #expect(Set(body.keys) == ["code", "message", "details", "hint"])
    }
}
