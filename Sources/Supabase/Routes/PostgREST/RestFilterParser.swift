import Domain
import Store

/// PostgREST's filter grammar (`src/PostgREST/ApiRequest/QueryParams.hs`), the subset this
/// server serves: `col=[not.]op.value` with `eq neq gt gte lt lte like ilike is in`, and the
/// logic trees `or=(…)` / `and=(…)` (also `not.`-prefixed, nested as `and(…)`/`or(…)`), whose
/// items are `col.[not.]op.value` and whose values may be double-quoted (`\` escapes).
struct RestFilterParser {
    let description: ResourceDescription

    static let unsupportedOperators: Set<String> = [
        "match", "imatch", "fts", "plfts", "phfts", "wfts", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj",
        "isdistinct",
    ]

    /// `key=value` where `key` is a column.
    func filter(column name: String, _ value: String) throws -> RestCondition {
        try expression(column: try column(name), Substring(value), raw: value)
    }

    /// `or=(…)`, `and=(…)`, `not.or=(…)`, `not.and=(…)`.
    func tree(key: String, _ value: String) throws -> RestCondition {
        var scanner = RestFilterScanner(Array(value))
        let items = try items(&scanner, raw: value)
        guard scanner.atEnd else { throw RestError.badQuery("failed to parse logic tree (\(value))", details: "unexpected text after ')'") }
        let negated = key.hasPrefix("not.")
        let combined: RestCondition = key.hasSuffix("or") ? .any(items) : .all(items)
        return negated ? .not(combined) : combined
    }

    // MARK: - Filter expressions

    private func expression(column: ColumnDescription, _ text: Substring, raw: String) throws -> RestCondition {
        var rest = text
        var negated = false
        if rest.hasPrefix("not.") { negated = true; rest = rest.dropFirst(4) }
        guard let dot = rest.firstIndex(of: ".") else {
            throw RestError.badQuery("failed to parse filter (\(raw))", details: "expected an operator followed by '.'")
        }
        let op = String(rest[..<dot])
        let value = String(rest[rest.index(after: dot)...])
        let condition = try condition(column: column, op: op, value: value, raw: raw)
        return negated ? .not(condition) : condition
    }

    private func condition(column: ColumnDescription, op: String, value: String, raw: String) throws -> RestCondition {
        if let comparison = RestComparison(rawValue: op) {
            if comparison == .like || comparison == .ilike {
                return .compare(column, comparison, RestValue.pattern(value))
            }
            return .compare(column, comparison, try RestValue.normalized(value, for: column))
        }
        switch op {
        case "is":
            return .isValue(column, try isValue(value, column: column, raw: raw))
        case "in":
            let elements = try Self.list(value, raw: raw)
            return .inList(column, try elements.map { try RestValue.normalized($0, for: column) })
        default:
            let base = op.split(separator: "(").first.map(String.init) ?? op
            if Self.unsupportedOperators.contains(base) || RestComparison(rawValue: base) != nil {
                throw RestError.badQuery("operator '\(op)' is not supported by this server",
                                         details: "Supported: eq, neq, gt, gte, lt, lte, like, ilike, is, in, and not. before any of them.")
            }
            throw RestError.badQuery("failed to parse filter (\(raw))", details: "unknown operator '\(op)'")
        }
    }

    private func isValue(_ value: String, column: ColumnDescription, raw: String) throws -> RestIsValue {
        switch value.lowercased() {
        case "null": return .null
        case "not_null": return .notNull
        case "true", "false", "unknown":
            guard column.type == .boolean else {
                throw RestError(status: .badRequest, code: .datatypeMismatch,
                                message: "argument of IS \(value.uppercased()) must be type boolean, not \(column.type.sqlType)")
            }
            return value.lowercased() == "true" ? .isTrue : value.lowercased() == "false" ? .isFalse : .unknown
        default:
            throw RestError.badQuery("failed to parse filter (\(raw))", details: "is accepts null, not_null, true, false, unknown")
        }
    }

    func column(_ name: String) throws -> ColumnDescription {
        if name.contains("->") || name.contains("::") || name.contains(".") || name.contains("(") {
            throw RestError.badQuery("embedded resources, JSON paths and casts are not supported in filters ('\(name)')")
        }
        guard let column = description.column(name) else { throw RestError.unknownColumn(description.table, name) }
        return column
    }

    // MARK: - `in` lists

    /// `(a,b,"c,d")` → ["a", "b", "c,d"].
    static func list(_ value: String, raw: String) throws -> [String] {
        guard value.hasPrefix("("), value.hasSuffix(")"), value.count >= 2 else {
            throw RestError.badQuery("failed to parse filter (\(raw))", details: "in expects a list: in.(a,b,c)")
        }
        var scanner = RestFilterScanner(Array(value.dropFirst().dropLast()))
        var elements: [String] = []
        if scanner.atEnd { return [] }
        while true {
            elements.append(try scanner.value(stopAt: [","], raw: raw))
            if scanner.atEnd { return elements }
            scanner.advance() // the comma
        }
    }

    // MARK: - Logic trees

    private func items(_ scanner: inout RestFilterScanner, raw: String) throws -> [RestCondition] {
        guard scanner.take("(") else { throw RestError.badQuery("failed to parse logic tree (\(raw))", details: "expected '('") }
        var items: [RestCondition] = []
        while true {
            items.append(try item(&scanner, raw: raw))
            if scanner.take(",") { continue }
            if scanner.take(")") { return items }
            throw RestError.badQuery("failed to parse logic tree (\(raw))", details: "expected ',' or ')'")
        }
    }

    private func item(_ scanner: inout RestFilterScanner, raw: String) throws -> RestCondition {
        for prefix in ["not.and", "not.or", "and", "or"] where scanner.peek(prefix + "(") {
            scanner.advance(by: prefix.count)
            let inner = try items(&scanner, raw: raw)
            let combined: RestCondition = prefix.hasSuffix("or") ? .any(inner) : .all(inner)
            return prefix.hasPrefix("not.") ? .not(combined) : combined
        }
        let name = scanner.read { $0 != "." && $0 != "," && $0 != ")" && $0 != "(" }
        guard scanner.take(".") else { throw RestError.badQuery("failed to parse logic tree (\(raw))", details: "expected column.operator.value") }
        let column = try column(name)
        var negated = false
        if scanner.peek("not.") { scanner.advance(by: 4); negated = true }
        let op = scanner.read { $0 != "." && $0 != "," && $0 != ")" }
        guard scanner.take(".") else { throw RestError.badQuery("failed to parse logic tree (\(raw))", details: "expected operator.value") }
        let value: String
        if op == "in" {
            value = try scanner.parenthesised(raw: raw)
        } else {
            value = try scanner.value(stopAt: [",", ")"], raw: raw)
        }
        let condition = try condition(column: column, op: op, value: value, raw: raw)
        return negated ? .not(condition) : condition
    }
}
