import Foundation
import Postgres
import Testing
import TestSupport

/// A new history row is stamped past its entity's latest row (0010) by reading one entry of the
/// entity's index, whatever the length of its history (0041). With `max(created_at)` the plan
/// aggregated every entry the entity had, so each claim or release of a long-lived task read
/// all of its claim events. Counted with PostgreSQL's own statistics for the index, inside the
/// inserting transaction (`pg_stat_get_xact_tuples_returned`), not timed.
@Suite struct HistoryStampTests {
    @Test(arguments: ["claim_events", "status_changes"])
    func stampingAHistoryRowReadsOneEntryOfItsEntitysHistory(_ table: String) throws {
        let database = try TestDatabase.create()
        let user: String = try #require(try database.pool.query(
            "INSERT INTO users (name, email) VALUES ('H', 'h@x.io') RETURNING id::text").first).decode("id")
        let entity = UUID()
        func insert(count: Int, on connection: PostgresConnection) throws {
            let sql: PostgresQuery = table == "claim_events"
                ? "INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id) SELECT 'task', \(entity), \(user)::uuid, 'claimed', \(user)::uuid FROM generate_series(1, \(count))"
                : "INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by) SELECT 'task', \(entity), 'in_progress', \(user)::uuid FROM generate_series(1, \(count))"
            try connection.execute(sql)
        }
        try database.pool.withConnection { try insert(count: 50, on: $0) }
        let index = PostgresQuery(sql: "'\(table)_entity_idx'::regclass")
        let read: Int = try database.pool.withTransaction { connection in
            let counter: PostgresQuery = "SELECT pg_stat_get_xact_tuples_returned(\(index))::int AS n"
            let before: Int = try #require(try connection.query(counter).first).decode("n")
            try insert(count: 1, on: connection)
            return try #require(try connection.query(counter).first).decode("n") - before
        }
        #expect(read == 1)
        // Still strictly after the entity's latest row.
        let ordered = try #require(try database.pool.query(PostgresQuery(sql: """
            SELECT count(DISTINCT created_at) = count(*) AS strict FROM \(table) WHERE entity_id = '\(entity.uuidString)'
            """)).first)
        #expect(try ordered.decode("strict", as: Bool.self))
    }
}
