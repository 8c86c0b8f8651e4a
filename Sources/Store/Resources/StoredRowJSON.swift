import Postgres

/// The row JSON a read returns, as SQL. Tasks and activities store theirs with the row
/// (`row_json`, kept by a trigger: `0017_stored_row_json.sql`), so a read fetches text instead of
/// building it with `dispatch_json` (~17 µs of PostgreSQL per row: a list page of 51 rows spent
/// ~850 µs there). The stored text is `dispatch_json(row)::text` itself; `COALESCE` computes it
/// for a row written with triggers off (`session_replication_role = replica`), so the answer is
/// the same either way.
enum StoredRowJSON {
    /// Tables whose rows carry `row_json` (fixed list, safe to splice).
    static let tables: Set<String> = ["tasks", "activities"]

    /// `dispatch_json(alias)::text`, read from the stored column where `table` has one.
    static func text(_ alias: String, table: String) -> PostgresQuery {
        guard tables.contains(table) else { return "dispatch_json(\(unsafeSQL: alias))::text" }
        return "COALESCE(\(unsafeSQL: alias).row_json, dispatch_json(\(unsafeSQL: alias))::text)"
    }
}
