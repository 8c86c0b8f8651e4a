import Domain
import Postgres

/// The SQL of a `/rest/v1` read: the row JSON (`dispatch_json`, or the selected keys built the
/// same way), the resource's visibility rule (`Visibility.predicate`), the filters with values
/// bound and cast to the described column types, the order and the range.
enum RestReadSQL {
    static let alias = "t"

    /// `SELECT <json> FROM <table> t WHERE … ORDER BY … LIMIT … OFFSET …`.
    static func rows(_ query: RestReadQuery, _ viewer: Viewer) -> PostgresQuery {
        var sql: PostgresQuery = "SELECT \(json(query)) AS json FROM \(from(query, viewer))"
        let order = orderBy(query.order)
        if !order.isEmpty { sql = "\(sql) ORDER BY \(unsafeSQL: order)" }
        if let limit = query.limit { sql = "\(sql) LIMIT \(Int64(limit))" }
        if query.offset > 0 { sql = "\(sql) OFFSET \(Int64(query.offset))" }
        return sql
    }

    /// The number of visible rows the filters match, ignoring the range.
    static func count(_ query: RestReadQuery, _ viewer: Viewer) -> PostgresQuery {
        "SELECT count(*) AS n FROM \(from(query, viewer))"
    }

    /// The planner's estimate of the same number (`Prefer: count=planned`).
    static func plannedCount(_ query: RestReadQuery, _ viewer: Viewer) -> PostgresQuery {
        "EXPLAIN (FORMAT JSON) SELECT 1 FROM \(from(query, viewer))"
    }

    private static func from(_ query: RestReadQuery, _ viewer: Viewer) -> PostgresQuery {
        let description = query.resource.description
        var sql: PostgresQuery = """
            \(unsafeSQL: description.table) \(unsafeSQL: alias) \
            WHERE \(Visibility.predicate(description.visibility, alias: alias, viewer))
            """
        for condition in query.conditions { sql = "\(sql) AND \(predicate(condition))" }
        return sql
    }

    /// The row as JSON text: the database's one definition for `*`; for a column list, the
    /// same keys built the same way (timestamps through `dispatch_ts`).
    private static func json(_ query: RestReadQuery) -> PostgresQuery {
        guard let columns = query.columns else { return "dispatch_json(\(unsafeSQL: alias))::text" }
        var seen = Set<String>()
        let parts = columns.filter { seen.insert($0.name).inserted }.map { column in
            "'\(column.name)', \(valueExpression(column))"
        }
        return "json_build_object(\(unsafeSQL: parts.joined(separator: ", ")))::text"
    }

    private static func valueExpression(_ column: ColumnDescription) -> String {
        column.type == .timestamp ? "dispatch_ts(\(alias).\(column.name))" : "\(alias).\(column.name)"
    }

    private static func columnRef(_ column: ColumnDescription) -> String { "\(alias).\(column.name)" }

    static func predicate(_ condition: RestCondition) -> PostgresQuery {
        switch condition {
        case .all(let parts):
            return join(parts, with: " AND ", empty: "TRUE")
        case .any(let parts):
            return join(parts, with: " OR ", empty: "FALSE")
        case .not(let inner):
            return "NOT (\(predicate(inner)))"
        case .compare(let column, let comparison, let value):
            if comparison == .like || comparison == .ilike {
                // Patterns compare text: a uuid or timestamp column is matched on its text form.
                return "\(unsafeSQL: columnRef(column))::text \(unsafeSQL: comparison.sqlOperator) \(value)::text"
            }
            return "\(unsafeSQL: columnRef(column)) \(unsafeSQL: comparison.sqlOperator) \(value)::\(unsafeSQL: column.type.sqlType)"
        case .isValue(let column, let value):
            return "\(unsafeSQL: columnRef(column)) IS \(unsafeSQL: value.rawValue)"
        case .inList(let column, let values):
            guard !values.isEmpty else { return "FALSE" }
            var list: PostgresQuery = ""
            for (index, value) in values.enumerated() {
                list = index == 0 ? "\(value)::\(unsafeSQL: column.type.sqlType)"
                                  : "\(list), \(value)::\(unsafeSQL: column.type.sqlType)"
            }
            return "\(unsafeSQL: columnRef(column)) IN (\(list))"
        case .since(let column, let value, let overlap):
            return """
                \(unsafeSQL: columnRef(column)) >= \(value)::timestamptz - make_interval(secs => \(Double(overlap) / 1000))
                """
        }
    }

    private static func join(_ parts: [RestCondition], with separator: String, empty: String) -> PostgresQuery {
        guard let first = parts.first else { return PostgresQuery(sql: empty) }
        var sql: PostgresQuery = "(\(predicate(first))"
        for part in parts.dropFirst() { sql = "\(sql)\(unsafeSQL: separator)\(predicate(part))" }
        return "\(sql))"
    }

    private static func orderBy(_ terms: [RestOrderTerm]) -> String {
        terms.map { term in
            var text = columnRef(term.column) + (term.descending ? " DESC" : " ASC")
            if let nullsFirst = term.nullsFirst { text += nullsFirst ? " NULLS FIRST" : " NULLS LAST" }
            return text
        }.joined(separator: ", ")
    }
}
