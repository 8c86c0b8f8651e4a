import Domain
import Foundation
import Postgres

/// INSERT and UPDATE statements of a resource written from its description: the client's
/// columns come from the input, the rules' columns from the store (`ServerValue`).
enum ResourceWriteSQL {
    /// What a write answers: the row as the API emits it, its version and id. RETURNING sees
    /// the row as the BEFORE triggers left it, so where the table stores its row JSON (tasks,
    /// activities: `StoredRowJSON`) the trigger's text is the answer: building it a second time
    /// with `dispatch_json` cost ~20 µs of PostgreSQL per create, claim or release.
    static func returning(_ alias: String, table: String) -> PostgresQuery {
        "\(StoredRowJSON.text(alias, table: table)) AS json, \(unsafeSQL: alias).version, \(unsafeSQL: alias).id"
    }

    /// INSERT of a new row (`id` nil: the server picks one) that does nothing when the id is
    /// taken, so the caller can answer a replay.
    static func insert(_ description: ResourceDescription, alias: String, id: UUID?, input: ResourceInput,
                       server: [ServerValue] = [], returning: PostgresQuery? = nil) -> PostgresQuery {
        let written = input.written(description, patch: false)
        let columns = ["id"] + written.map(\.column.name) + server.map(\.column)
        let values: [PostgresQuery] = ["coalesce(\(id), gen_random_uuid())"]
            + written.map { $0.value.bound(as: $0.column.type) } + server.map(\.value)
        return """
            INSERT INTO \(unsafeSQL: description.table) AS \(unsafeSQL: alias) (\(unsafeSQL: columns.joined(separator: ", ")))
            VALUES (\(PostgresQuery.joined(values, separator: ", ")))
            ON CONFLICT (id) DO NOTHING
            RETURNING \(returning ?? Self.returning(alias, table: description.table))
            """
    }

    /// The same INSERT as `insert`, with what the rules add to a create, in one statement (one
    /// round trip, so it needs no transaction of its own):
    /// - it inserts only when `condition` holds, and answers whether it held (`allowed`), so a
    ///   check that used to be its own query is made in the same snapshot as the insert;
    /// - `history` (an `INSERT … SELECT … FROM inserted`) writes the history row of the new
    ///   row, and writes nothing when the id was taken.
    /// One row: `allowed`, and the new row's `json`, `version`, `id` (NULL when nothing was
    /// inserted: not allowed, or the id is taken). Values in the SELECT list get no type from
    /// the target column, so a server value that is a bare NULL must carry a cast.
    ///
    /// With `caller`, the statement also reads the caller's account (`CallerSQL.cte`): it writes
    /// only for an active caller, `condition` may use the role (`CallerSQL.allows`), and it
    /// answers the caller's `user_type` too, or no row at all when the account is inactive.
    static func insert(_ description: ResourceDescription, alias: String, id: UUID?, input: ResourceInput,
                       server: [ServerValue], condition: PostgresQuery, history: PostgresQuery,
                       caller: UUID? = nil) -> PostgresQuery {
        let written = input.written(description, patch: false)
        let columns = ["id"] + written.map(\.column.name) + server.map(\.column)
        let values: [PostgresQuery] = ["coalesce(\(id), gen_random_uuid())"]
            + written.map { $0.value.bound(as: $0.column.type) } + server.map(\.value)
        let allowed: PostgresQuery = caller.map {
            "\(CallerSQL.cte($0)), allowed AS (SELECT c.user_type, \(condition) AS allowed FROM caller c)"
        } ?? "allowed AS (SELECT \(condition) AS allowed)"
        let callerColumn: PostgresQuery = caller == nil ? "" : "allowed.user_type, "
        return """
            WITH \(allowed),
            inserted AS (
                INSERT INTO \(unsafeSQL: description.table) AS \(unsafeSQL: alias) (\(unsafeSQL: columns.joined(separator: ", ")))
                SELECT \(PostgresQuery.joined(values, separator: ", ")) FROM allowed WHERE allowed.allowed
                ON CONFLICT (id) DO NOTHING
                RETURNING \(Self.returning(alias, table: description.table))),
            history AS (\(history))
            SELECT \(callerColumn)allowed.allowed, inserted.json, inserted.version, inserted.id FROM allowed LEFT JOIN inserted ON TRUE
            """
    }

    /// UPDATE of row `id` setting `sets` (from `ResourceInput.assignments` and the rules).
    static func update(_ description: ResourceDescription, alias: String, id: UUID, sets: [PostgresQuery],
                       returning: PostgresQuery? = nil) -> PostgresQuery {
        """
        UPDATE \(unsafeSQL: description.table) \(unsafeSQL: alias) SET \(PostgresQuery.joined(sets, separator: ", "))
        WHERE \(unsafeSQL: alias).id = \(id)
        RETURNING \(returning ?? Self.returning(alias, table: description.table))
        """
    }
}
