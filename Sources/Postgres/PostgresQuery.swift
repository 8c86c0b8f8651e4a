/// A SQL statement whose values travel only as bound parameters.
///
/// Interpolating a value appends `$n` to the SQL and the value to `binds`:
/// `"SELECT * FROM tasks WHERE id = \(id)"` becomes `SELECT * FROM tasks WHERE id = $1`.
/// The only way to splice text into the SQL is `\(unsafeSQL:)`, meant for identifiers chosen
/// from fixed lists in code — never for input.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public var sql: String
    public var binds: [PostgresBind]

    public init(sql: String, binds: [PostgresBind] = []) {
        self.sql = sql
        self.binds = binds
    }

    public init(sql: String, binding values: [any PostgresEncodable]) {
        self.sql = sql
        self.binds = values.map { value in
            PostgresBind(text: value.postgresText, typeOID: type(of: value).postgresTypeOID)
        }
    }

    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(sql: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// SQL text only; bound values are never printed because they may be personal data.
    public var description: String { sql }

    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var sql: String
        var binds: [PostgresBind]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// Binds `value` as the next `$n` parameter.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            binds.append(PostgresBind(value))
            sql += "$\(binds.count)"
        }

        /// Binds an optional value; nil is SQL NULL typed as `Value`. (A separate overload so
        /// the compiler does not warn about interpolating optionals.)
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            binds.append(PostgresBind(value))
            sql += "$\(binds.count)"
        }

        /// Splices another query, renumbering its `$n` placeholders to follow this one's binds.
        /// Lets reusable predicates (visibility rules) be written once as queries of their own.
        /// The fragment must not contain `$` except in placeholders (no dollar-quoted strings).
        /// Works on UTF-8 bytes: every request builds its SQL this way (the visibility
        /// predicates), and the Unicode-scalar version was 3 % of a request's CPU in perf.
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            let offset = binds.count
            binds.append(contentsOf: fragment.binds)
            guard offset > 0, fragment.sql.utf8.contains(UInt8(ascii: "$")) else { sql += fragment.sql; return }
            let bytes = Array(fragment.sql.utf8)
            var spliced: [UInt8] = []
            spliced.reserveCapacity(bytes.count + 2 * fragment.binds.count)
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "$") else {
                    spliced.append(bytes[index])
                    index += 1
                    continue
                }
                var end = index + 1
                while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
                // A "$" without digits (or with more than any parameter count has) is copied as it is.
                guard end > index + 1, end - index <= 9,
                      let number = Int(String(decoding: bytes[(index + 1)..<end], as: UTF8.self))
                else {
                    spliced.append(bytes[index])
                    index += 1
                    continue
                }
                spliced.append(contentsOf: Array("$\(number + offset)".utf8))
                index = end
            }
            sql += String(decoding: spliced, as: UTF8.self)
        }

        /// Splices raw SQL text. Only for identifiers or fragments from fixed lists in code:
        /// anything derived from input here is an injection hole.
        public mutating func appendInterpolation(unsafeSQL fragment: String) {
            sql += fragment
        }
    }
}
