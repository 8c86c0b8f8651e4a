import Foundation
import Postgres

/// Fills a database with the demo team of `DemoSQL` in one transaction: it appears whole or
/// not at all, and a failure leaves the database as it was.
struct DemoSeeder {
    let dataset: DemoDataset
    /// Shared by every demo user (see SeedDemoCommand for why one hash is reused).
    let passwordHash: String
    /// Delete existing content first instead of refusing to seed a database that has some.
    let replace: Bool

    struct Step {
        let name: String
        let rows: Int
        let seconds: Double
    }

    /// The database already has content and `replace` was not given.
    struct Refusal: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Tables whose BEFORE trigger stamps `updated_at = now()` and `version = 1` on insert.
    static let stampedTables = ["users", "listings", "tasks", "activities", "notes", "subtasks", "claim_events", "status_changes"]
    /// Content tables emptied by `replace` (users are kept except the demo ones).
    static let contentTables = ["listings", "tasks", "activities", "notes", "subtasks", "claim_events", "status_changes"]

    func run(pool: PostgresPool) throws -> [Step] {
        var steps: [Step] = []
        try pool.withTransaction { connection in
            // The pool's statement timeout is for requests; a 200k-row INSERT may take longer.
            try connection.execute("SET LOCAL statement_timeout = 0")
            connection.answerDeadlineLifted = true
            defer { connection.answerDeadlineLifted = false }
            // JIT-compiling these long expressions costs more than it saves (measured).
            try connection.execute("SET LOCAL jit = off")
            if replace {
                try clearExisting(connection)
            } else {
                try refuseIfNotEmpty(connection)
            }
            try connection.runTrustedScript(DemoSQL.helpers(dataset))
            // The stamping trigger would give every row updated_at = now() and version 1; with it
            // off for this transaction only, rows carry a believable history (updated_at after
            // created_at, version = 1 + their events). ALTER TABLE is transactional and locks the
            // tables until COMMIT, so no other session ever writes while the trigger is off.
            for table in Self.stampedTables {
                try connection.execute("ALTER TABLE \(unsafeSQL: table) DISABLE TRIGGER \(unsafeSQL: table)_stamp")
            }
            let statements: [(String, PostgresQuery)] = [
                ("users", PostgresQuery(sql: DemoSQL.users(dataset))),
                ("user_passwords", PostgresQuery(sql: DemoSQL.passwords(dataset), binding: [passwordHash])),
                ("listings", PostgresQuery(sql: DemoSQL.listings(dataset))),
                ("tasks", PostgresQuery(sql: DemoSQL.tasks(dataset))),
                ("activities", PostgresQuery(sql: DemoSQL.activities(dataset))),
                ("notes", PostgresQuery(sql: DemoSQL.notes(dataset))),
                ("subtasks", PostgresQuery(sql: DemoSQL.subtasks(dataset))),
                ("claim_events", PostgresQuery(sql: DemoSQL.claimEvents(dataset))),
                ("status_changes", PostgresQuery(sql: DemoSQL.statusChanges(dataset))),
            ]
            for (name, statement) in statements {
                let start = ContinuousClock.now
                let rows = try connection.execute(statement)
                steps.append(Step(name: name, rows: rows, seconds: Self.seconds(since: start)))
            }
            for table in Self.stampedTables {
                try connection.execute("ALTER TABLE \(unsafeSQL: table) ENABLE TRIGGER \(unsafeSQL: table)_stamp")
            }
            // The helper functions live in this pooled session's temporary schema.
            try connection.execute("DISCARD TEMP")
        }
        // Fresh statistics and visibility maps right away, so the first queries (and EXPLAIN)
        // get the plans they will have in steady state instead of waiting for autovacuum.
        let start = ContinuousClock.now
        try pool.withConnection { connection in
            try connection.execute("SET statement_timeout = 0")
            connection.answerDeadlineLifted = true
            defer { connection.answerDeadlineLifted = false }
            try connection.runTrustedScript("VACUUM (ANALYZE) " + (["users", "user_passwords"] + Self.contentTables).joined(separator: ", "))
            try connection.execute("RESET statement_timeout")
        }
        steps.append(Step(name: "vacuum analyze", rows: 0, seconds: Self.seconds(since: start)))
        return steps
    }

    private func refuseIfNotEmpty(_ connection: PostgresConnection) throws {
        let checks = Self.contentTables.map { "EXISTS (SELECT 1 FROM \($0))" }
            + ["EXISTS (SELECT 1 FROM users WHERE lower(email) LIKE '%@\(DemoDataset.emailDomain)')"]
        let rows = try connection.query(PostgresQuery(sql: "SELECT \(checks.joined(separator: " OR ")) AS has_content"))
        let hasContent: Bool = try rows.first?.decode("has_content") ?? true
        if hasContent {
            throw Refusal(message: """
                the database already has listings, tasks, activities, notes or demo users; \
                seed-demo only fills an empty database (use --replace to delete that content first)
                """)
        }
    }

    /// Deletes all content (not only demo rows) and the demo users; other users, and their
    /// credentials, stay. TRUNCATE writes no tombstones: clients that synced before must
    /// start over.
    private func clearExisting(_ connection: PostgresConnection) throws {
        // Tables whose rows only point at content (a Slack receipt names its task) go with it:
        // TRUNCATE refuses a table another table still references.
        let tables = Self.contentTables + ["slack_receipts"]
        try connection.execute("TRUNCATE \(unsafeSQL: tables.joined(separator: ", "))")
        try connection.execute("DELETE FROM users WHERE lower(email) LIKE \("%@" + DemoDataset.emailDomain)")
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
