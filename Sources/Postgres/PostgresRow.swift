/// One result row. Decoding never crashes: NULL for a non-optional type, bad text, or an
/// unknown column throws `PostgresError` of kind `.decoding` naming the column.
public struct PostgresRow: Sendable {
    public let columns: PostgresColumns
    let values: [String?]

    init(columns: PostgresColumns, values: [String?]) {
        self.columns = columns
        self.values = values
    }

    public var count: Int { values.count }

    /// The raw text of a column (nil for NULL).
    public func text(_ column: String) throws -> String? {
        guard let index = columns.index(of: column) else {
            throw PostgresError(kind: .decoding, message: "no column named \"\(column)\" in result", column: column)
        }
        return values[index]
    }

    public func decode<Value: PostgresDecodable>(_ column: String, as type: Value.Type = Value.self) throws -> Value {
        guard let index = columns.index(of: column) else {
            throw PostgresError(kind: .decoding, message: "no column named \"\(column)\" in result", column: column)
        }
        return try decode(at: index, name: column, as: type)
    }

    public func decode<Value: PostgresDecodable>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
        guard values.indices.contains(index) else {
            throw PostgresError(kind: .decoding, message: "column index \(index) out of range (\(values.count) columns)")
        }
        return try decode(at: index, name: columns.names[index], as: type)
    }

    private func decode<Value: PostgresDecodable>(at index: Int, name: String, as type: Value.Type) throws -> Value {
        do {
            return try Value.decode(postgresText: values[index])
        } catch var error as PostgresError {
            error.column = name
            error.message += " (column \"\(name)\")"
            throw error
        }
    }
}
