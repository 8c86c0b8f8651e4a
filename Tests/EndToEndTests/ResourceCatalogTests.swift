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

    @Test(arguments: Resource.allCases)
    func describedEnumerationsAreTheCheckedValues(resource: Resource) throws {
        let database = try TestDatabase.create()
        let description = resource.description
        for column in description.columns {
            guard case .enumeration(let values) = column.type else { continue }
            let rows = try database.pool.query("""
                SELECT pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c
                WHERE c.conrelid = \(description.table)::regclass AND c.contype = 'c'
                  AND pg_get_constraintdef(c.oid) LIKE \("%(" + column.name + " = ANY%")
                """)
            let definition = try #require(rows.first).decode("definition", as: String.self)
            for value in values {
                #expect(definition.contains("'\(value)'::text"), "\(description.table).\(column.name) lacks \(value)")
            }
            #expect(definition.components(separatedBy: "::text").count - 1 == values.count,
                    "\(description.table).\(column.name): \(definition)")
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
