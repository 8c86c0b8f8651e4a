import Domain
import Postgres
import Testing
import TestSupport

/// The resource descriptions (`Domain/Resources`) against the real schema and the real JSON:
/// a column added by a migration but not described (or described but not there, or with
/// another type or nullability) fails here, and so does a JSON key the description lacks.
@Suite struct ResourceCatalogTests {
    /// PostgreSQL's name for each described type (`information_schema.columns.data_type`).
    private static func databaseType(_ type: ColumnType) -> String {
        switch type {
        case .uuid: "uuid"
        case .text, .enumeration: "text"
        case .integer: "integer"
        case .decimal: "numeric"
        case .boolean: "boolean"
        case .timestamp: "timestamp with time zone"
        case .textArray: "ARRAY"
        }
    }

    @Test(arguments: Resource.allCases)
    func describedColumnsAreTheTableColumns(resource: Resource) throws {
        let database = try TestDatabase.create()
        let description = resource.description
        // Internal columns, never in the row JSON: txid (the sync cursor) and row_json (the
        // stored `dispatch_json` text of tasks and activities, 0017).
        let rows = try database.pool.query("""
            SELECT column_name::text AS name, data_type::text AS type, (is_nullable = 'YES') AS nullable
            FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(description.table) AND column_name NOT IN ('txid', 'row_json')
            ORDER BY ordinal_position
            """)
        let actual = try rows.map {
            "\(try $0.decode("name", as: String.self)) \(try $0.decode("type", as: String.self)) \(try $0.decode("nullable", as: Bool.self))"
        }
        let described = description.columns.map { "\($0.name) \(Self.databaseType($0.type)) \($0.nullable)" }
        #expect(actual == described)
    }

    /// Each enumerated column's CHECK is `dispatch_is_<name>(column)` (0028: an IN list stored in
    /// the constraint was re-read on every write), that function is exactly the template
    /// `value = ANY (<schema>.dispatch_vocabulary('<name>'))` (the schema named, for pg_restore's
    /// empty search_path), and `dispatch_vocabulary('<name>')` is the
    /// catalog's list. So a column checked against another vocabulary, a hand-edited membership
    /// function or a list that differs from the catalog by one value fails here.
    @Test(arguments: Resource.allCases)
    func describedEnumerationsAreTheCheckedValues(resource: Resource) throws {
        let database = try TestDatabase.create()
        let description = resource.description
        for column in description.columns {
            guard case .enumeration(let values) = column.type else { continue }
            let pattern = "^CHECK \\(dispatch_is_([a-z_]+)\\(" + column.name + "\\)\\)$"
            let rows = try database.pool.query("""
                WITH checks AS (
                    SELECT pg_get_constraintdef(c.oid) AS definition,
                           substring(pg_get_constraintdef(c.oid) FROM \(pattern)) AS name
                    FROM pg_constraint c
                    WHERE c.conrelid = \(description.table)::regclass AND c.contype = 'c'
                      AND pg_get_constraintdef(c.oid) LIKE \("%(" + column.name + ")%"))
                SELECT checks.definition, checks.name,
                       (SELECT p.prosrc FROM pg_proc p WHERE p.proname = 'dispatch_is_' || checks.name) AS body,
                       quote_ident(current_schema()) AS schema,
                       CASE WHEN checks.name IS NOT NULL THEN array_to_string(dispatch_vocabulary(checks.name), ',') END AS vocabulary
                FROM checks
                """)
            #expect(rows.count == 1, "\(description.table).\(column.name): one CHECK expected, found \(rows.count)")
            let row = try #require(rows.first)
            let definition = try row.decode("definition", as: String.self)
            let name = try #require(try row.decode("name", as: String?.self), "\(description.table).\(column.name): \(definition)")
            let schema = try row.decode("schema", as: String.self)
            #expect(try row.decode("body", as: String?.self) == "BEGIN RETURN value = ANY (\(schema).dispatch_vocabulary('\(name)')); END;",
                    "\(description.table).\(column.name): dispatch_is_\(name) is not the template")
            let vocabulary = try #require(try row.decode("vocabulary", as: String?.self))
            #expect(vocabulary.split(separator: ",").map(String.init).sorted() == values.sorted(),
                    "\(description.table).\(column.name): dispatch_vocabulary('\(name)') is [\(vocabulary)]")
        }
    }

    @Test(arguments: Resource.allCases)
    func emittedJSONKeysAreTheDescribedColumns(resource: Resource) throws {
        let database = try TestDatabase.create()
        let table = resource.description.table
        let rows = try database.pool.query(PostgresQuery(sql: """
            SELECT array_to_string(ARRAY(SELECT json_object_keys(dispatch_json(NULL::\(table)))), ',') AS keys
            """))
        let keys = try #require(rows.first).decode("keys", as: String.self)
        #expect(keys == resource.description.columns.map(\.name).joined(separator: ","))
    }
}
