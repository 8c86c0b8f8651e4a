import Domain
import Foundation

/// Checks and normalises a filter value for its column's type before it is bound, so a value
/// that cannot be one answers 400 `22P02` (as PostgreSQL would) instead of reaching SQL.
/// Timestamps are left to the database's parser (any offset; none means UTC, the session
/// time zone), after undoing one wire quirk.
enum RestValue {
    static func normalized(_ value: String, for column: ColumnDescription) throws -> String {
        switch column.type {
        case .uuid:
            // Swift sends `uuidString`, upper case; compare as UUIDs.
            guard let uuid = UUID(uuidString: value) else { throw RestError.invalidValue("uuid", value) }
            return uuid.uuidString.lowercased()
        case .integer:
            guard Int32(value.trimmingCharacters(in: .whitespaces)) != nil else { throw RestError.invalidValue("integer", value) }
            return value
        case .decimal:
            guard isDecimal(value) else { throw RestError.invalidValue("numeric", value) }
            return value
        case .boolean:
            guard let bool = boolean(value) else { throw RestError.invalidValue("boolean", value) }
            return bool ? "true" : "false"
        case .timestamp:
            let value = restoringOffsetPlus(value)
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw RestError.invalidValue("timestamp with time zone", value)
            }
            return value
        case .text, .enumeration, .textArray:
            return value
        }
    }

    /// `like`/`ilike` patterns: PostgREST's `*` wildcard is SQL's `%`.
    static func pattern(_ value: String) -> String {
        value.replacingOccurrences(of: "*", with: "%")
    }

    /// A raw `+` in a query string decodes as a space (form encoding), so
    /// `2024-06-15T18:12:04.123+02:00` sent unencoded arrives as `…04.123 02:00`. A space
    /// between a time and a two-digit hour offset can only have been that `+`.
    static func restoringOffsetPlus(_ value: String) -> String {
        guard let space = value.lastIndex(of: " ") else { return value }
        let offset = value[value.index(after: space)...]
        let before = value[..<space]
        let digits = offset.filter(\.isNumber)
        let offsetShape = (digits.count == 2 || digits.count == 4)
            && offset.allSatisfy { $0.isNumber || $0 == ":" } && offset.first?.isNumber == true
        guard offsetShape, before.contains(":"), before.last?.isNumber == true else { return value }
        return before + "+" + offset
    }

    private static func boolean(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "t", "true", "y", "yes", "on", "1": true
        case "f", "false", "n", "no", "off", "0": false
        default: nil
        }
    }

    private static func isDecimal(_ value: String) -> Bool {
        var rest = Substring(value)
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !rest.isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return false }
        return parts.contains { !$0.isEmpty }
    }
}
