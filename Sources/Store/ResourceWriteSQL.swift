import Domain
import Foundation
import Postgres

/// INSERT and UPDATE statements of a resource written from its description: the client's
/// columns come from the input, the rules' columns from the store (`ServerValue`).
enum ResourceWriteSQL {
    /// What a write answers: the row as the API emits it, its version and id.
    static func returning(_ alias: String) -> PostgresQuery {
        "dispatch_json(\(unsafeSQL: alias))::text AS json, \(unsafeSQL: alias).version, \(unsafeSQL: alias).id"
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
            RETURNING \(returning ?? Self.returning(alias))
            """
    }

    /// UPDATE of row `id` setting `sets` (from `ResourceInput.assignments` and the rules).
    static func update(_ description: ResourceDescription, alias: String, id: UUID, sets: [PostgresQuery],
                       returning: PostgresQuery? = nil) -> PostgresQuery {
        """
        UPDATE \(unsafeSQL: description.table) \(unsafeSQL: alias) SET \(PostgresQuery.joined(sets, separator: ", "))
        WHERE \(unsafeSQL: alias).id = \(id)
        RETURNING \(returning ?? Self.returning(alias))
        """
    }
}
