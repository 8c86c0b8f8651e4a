import Domain
import Foundation
import Postgres

/// The SQL a `/rest/v1` PATCH or DELETE needs around the store operations it calls: which
/// visible rows its filters match (locked, in id order, so two bulk writes over overlapping
/// rows queue instead of deadlocking), and the representation of the rows it wrote.
public enum RestWriteSQL {
    /// The ids of the rows of `query.resource` that `viewer` sees and `query.conditions`
    /// match, locked `FOR UPDATE` until the transaction ends. Filters are the read side's
    /// (`RestReadSQL.predicate`: described columns, bound values); the visibility rule is
    /// `Visibility.predicate`, so an invisible row is never matched, locked or named.
    public static func lockMatching(_ query: RestReadQuery, _ viewer: Viewer,
                                    on connection: PostgresConnection) throws -> [UUID] {
        let description = query.resource.description
        let alias = RestReadSQL.alias
        var sql: PostgresQuery = """
            SELECT \(unsafeSQL: alias).id FROM \(unsafeSQL: description.table) \(unsafeSQL: alias)
            WHERE \(Visibility.predicate(description.visibility, alias: alias, viewer))
            """
        for condition in query.conditions { sql = "\(sql) AND \(RestReadSQL.predicate(condition))" }
        sql = "\(sql) ORDER BY \(unsafeSQL: alias).id FOR UPDATE OF \(unsafeSQL: alias)"
        return try connection.query(sql).map { try $0.decode("id", as: UUID.self) }
    }

    /// The written rows (each `dispatch_json` text, as the store operations return them)
    /// restricted to the `select=` columns, in the same order. Projected by PostgreSQL from the
    /// rows' own JSON, so values keep their exact text (prices, timestamps) and no second
    /// read is needed — nor possible under the visibility rule: a release can take a row out
    /// of the releaser's view, and PostgREST still returns what the request wrote.
    public static func project(_ rows: [String], columns: [ColumnDescription],
                               on connection: PostgresConnection) throws -> [String] {
        guard !rows.isEmpty else { return [] }
        let names = columns.map(\.name)
        let projected = try connection.query("""
            SELECT (SELECT coalesce(json_object_agg(e.key, e.value), '{}'::json) FROM json_each(x.row::json) e
                    WHERE e.key = ANY(\(names)::text[]))::text AS json
            FROM unnest(\(rows)::text[]) WITH ORDINALITY AS x(row, n) ORDER BY x.n
            """)
        return try projected.map { try $0.decode("json", as: String.self) }
    }
}

extension RestWriteSQL {
    /// Rows `ids` of `resource` as `dispatch_json`, in the order of `ids`, read after a write
    /// that went through a store returning its own type (users), so the answer is the JSON
    /// every `/rest/v1` read returns.
    public static func rows(_ resource: Resource, ids: [UUID], on connection: PostgresConnection) throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let rows = try connection.query("""
            SELECT dispatch_json(r)::text AS json FROM \(unsafeSQL: resource.description.table) r
            WHERE r.id = ANY(\(ids)) ORDER BY array_position(\(ids), r.id)
            """)
        return try rows.map { try $0.decode("json", as: String.self) }
    }
}
