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
        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            let offset = binds.count
            binds.append(contentsOf: fragment.binds)
            guard offset > 0 else { sql += fragment.sql; return }
            var scalars = fragment.sql.unicodeScalars[...]
            while let dollar = scalars.firstIndex(of: "$") {
                sql.unicodeScalars.append(contentsOf: scalars[..<dollar])
                scalars = scalars[scalars.index(after: dollar)...]
                let digits = scalars.prefix { ("0"..."9").contains($0) }
                if let number = Int(String(String.UnicodeScalarView(digits))) {
                    sql += "$\(number + offset)"
                } else {
                    sql += "$"
                }
                scalars = scalars[digits.endIndex...]
            }
            sql.unicodeScalars.append(contentsOf: scalars)
        }

        /// Splices raw SQL text. Only for identifiers or fragments from fixed lists in code:
        /// anything derived from input here is an injection hole.
        public mutating func appendInterpolation(unsafeSQL fragment: String) {
            sql += fragment
        }
    }
}
