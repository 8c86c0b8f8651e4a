import Foundation
import Postgres
import Testing
import TestSupport

/// Migration 0013 applied to a database that already holds data from 0001–0012: it applies
/// alone, and every row's JSON (dispatch_ts inside dispatch_json) is byte-identical after it.
@Suite struct PlanCachedFunctionsUpgradeTests {
    @Test func upgradeKeepsEveryRowsJSONByteIdentical() throws {
        let repository = try #require(TestDatabase.repositoryMigrationsDirectory)
        let older = try TestDatabase.repositoryMigrations(through: 12)
        defer { try? FileManager.default.removeItem(at: older) }
        let database = try TestDatabase.create(migrations: older)
        try database.pool.execute("""
            WITH u AS (INSERT INTO users (name, email) VALUES ('Up', 'up@x.io') RETURNING id)
            INSERT INTO tasks (title, declared_by, claimed_by, claimed_at, due_date)
            SELECT 'Upgrade', id, id, '2026-12-31 23:59:59.999999Z', '2027-01-01 05:29:59.9995+05:30' FROM u
            """)
        try database.pool.execute("""
            INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id)
            SELECT 'task', t.id, t.declared_by, 'claimed', t.declared_by FROM tasks t
            """)
        let everyRow = """
            SELECT string_agg(j, E'\\n' ORDER BY j) AS rows FROM (
                SELECT dispatch_json(u)::text AS j FROM users u UNION ALL
                SELECT dispatch_json(t)::text FROM tasks t UNION ALL
                SELECT dispatch_json(c)::text FROM claim_events c) r
            """
        let before: String = try #require(try database.pool.query(PostgresQuery(sql: everyRow)).first).decode("rows")
        #expect(before.contains("\"claimed_at\" : \"2026-12-31T23:59:59.999Z\""))

        let applied = try Migrator(directory: repository).migrate(pool: database.pool)
        // 0013 first; later migrations (0014 on) may follow it in the same upgrade.
        #expect(applied.first?.version == 13)
        let after: String = try #require(try database.pool.query(PostgresQuery(sql: everyRow)).first).decode("rows")
        #expect(after == before)
    }
}
