import Domain
import Foundation
import HTTPServer
import JSON

/// The one-column filter of a `postgres_changes` subscription, Supabase's syntax:
/// `column=op.value` with `eq neq lt lte gt gte`, or `column=in.(a,b,"c d")`. Values are
/// typed by the column's description when the subscription is made (a bad value fails the
/// join), then compared with each row's JSON the way PostgreSQL would compare the column:
/// uuids case-insensitively, numbers as numbers, timestamps as instants. A row whose column
/// is null matches no comparison (SQL's unknown).
struct PostgresChangeFilter: Sendable, Equatable {
    enum Operator: String, Sendable, CaseIterable {
        case eq, neq, lt, lte, gt, gte, `in`
    }

    /// A filter or row value, normalised for comparison.
    enum Value: Sendable, Equatable, Comparable {
        case text(String)
        case number(Double)
        case bool(Bool)
        case instant(Date)

        static func < (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case let (.text(a), .text(b)): a < b
            case let (.number(a), .number(b)): a < b
            case let (.bool(a), .bool(b)): !a && b
            case let (.instant(a), .instant(b)): a < b
            default: false
            }
        }
    }

    let column: ColumnDescription
    let op: Operator
    let values: [Value]

    /// Parses `text` for a table described by `description`; the error says what is wrong.
    init(_ text: String, description: ResourceDescription) throws(RealtimeJoinError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw .invalid("filter \"\(text)\" must read column=operator.value (e.g. id=eq.…)")
        }
        let name = String(text[..<equals])
        guard let column = description.column(name) else {
            throw .invalid("filter \"\(text)\": \(description.table) has no column \"\(name)\"")
        }
        guard column.type != .textArray else {
            throw .invalid("filter \"\(text)\": array columns cannot be filtered")
        }
        let rest = text[text.index(after: equals)...]
        guard let dot = rest.firstIndex(of: "."), let op = Operator(rawValue: String(rest[..<dot])) else {
            throw .invalid("filter \"\(text)\": the operator must be one of eq, neq, lt, lte, gt, gte, in")
        }
        let raw = String(rest[rest.index(after: dot)...])
        let items: [String]
        if op == .in {
            guard raw.hasPrefix("("), raw.hasSuffix(")"), raw.count >= 2 else {
                throw .invalid("filter \"\(text)\": in takes a list, in.(a,b,c)")
            }
            items = Self.listItems(String(raw.dropFirst().dropLast()))
            guard !items.isEmpty else { throw .invalid("filter \"\(text)\": in needs at least one value") }
        } else {
            items = [raw]
        }
        var values: [Value] = []
        for item in items {
            guard let value = Self.value(item, for: column.type) else {
                throw .invalid("filter \"\(text)\": \"\(item)\" is not a valid \(column.type.sqlType) value")
            }
            values.append(value)
        }
        self.column = column
        self.op = op
        self.values = values
    }

    /// Whether a row (its JSON, decoded) passes the filter.
    func matches(_ record: [String: JSONValue]) -> Bool {
        guard let field = record[column.name], let value = Self.value(field, for: column.type) else { return false }
        switch op {
        case .eq: return value == values[0]
        case .neq: return value != values[0]
        case .lt: return value < values[0]
        case .lte: return value <= values[0]
        case .gt: return value > values[0]
        case .gte: return value >= values[0]
        case .in: return values.contains(value)
        }
    }

    /// A row's JSON value as a comparable value (nil for null or an unexpected shape).
    static func value(_ json: JSONValue, for type: ColumnType) -> Value? {
        switch json {
        case .string(let text): value(text, for: type)
        case .number(let number): type == .integer || type == .decimal ? .number(number) : nil
        case .bool(let flag): type == .boolean ? .bool(flag) : nil
        default: nil
        }
    }

    /// A filter's text (or a row's string) as a value of the column's type.
    static func value(_ text: String, for type: ColumnType) -> Value? {
        switch type {
        case .uuid:
            return UUID(uuidString: text).map { .text($0.uuidString.lowercased()) }
        case .integer, .decimal:
            return Double(text.trimmingCharacters(in: .whitespaces)).map(Value.number)
        case .boolean:
            switch text.lowercased() {
            case "true", "t": return .bool(true)
            case "false", "f": return .bool(false)
            default: return nil
            }
        case .timestamp:
            return Timestamp.parse(text).map(Value.instant)
        case .text, .enumeration, .textArray:
            return .text(text)
        }
    }

    /// `a,b,"c,d"` → [a, b, c,d]: double quotes keep commas, `\` escapes inside quotes.
    static func listItems(_ text: String) -> [String] {
        var items: [String] = [], current = "", quoted = false, escaped = false, wasQuoted = false
        for character in text {
            if escaped { current.append(character); escaped = false; continue }
            switch character {
            case "\\" where quoted: escaped = true
            case "\"": quoted.toggle(); wasQuoted = true
            case "," where !quoted:
                items.append(wasQuoted ? current : current.trimmingCharacters(in: .whitespaces))
                current = ""; wasQuoted = false
            default: current.append(character)
            }
        }
        items.append(wasQuoted ? current : current.trimmingCharacters(in: .whitespaces))
        return items.filter { !$0.isEmpty }
    }
}
