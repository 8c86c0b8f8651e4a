import Postgres

extension PostgresQuery {
    /// `parts` separated by `separator` (fixed SQL text), placeholders renumbered.
    static func joined(_ parts: [PostgresQuery], separator: String) -> PostgresQuery {
        guard var result = parts.first else { return "" }
        for part in parts.dropFirst() {
            result = "\(result)\(unsafeSQL: separator)\(part)"
        }
        return result
    }

    /// `column = value` for a SET list or a comparison; `column` comes from a fixed list in code.
    static func assign(_ column: String, _ value: some PostgresEncodable) -> PostgresQuery {
        "\(unsafeSQL: column) = \(value)"
    }
}
