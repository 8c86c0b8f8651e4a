import Postgres

/// A value read from the database that this code does not know, such as a status added by a
/// newer migration or written by hand past a dropped CHECK. Reading on with a guessed default
/// (an unknown status taken for `open`) would apply the wrong rules silently, so the read
/// fails instead: the request answers 500 `internal_error` and `ErrorMiddleware` logs this
/// (which column, which value) at error level. The value never reaches the client.
public struct UnknownStoredValue: Error, Sendable, Equatable, CustomStringConvertible {
    /// `table.column` or the column alias read.
    public let column: String
    public let value: String

    public init(column: String, value: String) {
        self.column = column
        self.value = value
    }

    public var description: String { "unknown value \"\(value.prefix(60))\" in \(column)" }
}

extension PostgresRow {
    /// The column as one of `Value`'s cases; throws `UnknownStoredValue` for any other text.
    func decodeKnown<Value: RawRepresentable>(_ column: String, as type: Value.Type = Value.self,
                                              table: String) throws -> Value where Value.RawValue == String {
        let text: String = try decode(column)
        guard let value = Value(rawValue: text) else { throw UnknownStoredValue(column: "\(table).\(column)", value: text) }
        return value
    }
}
