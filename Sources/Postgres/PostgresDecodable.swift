import Foundation

/// A value that can be read from a text-format result column.
public protocol PostgresDecodable {
    /// Decodes non-NULL column text; throws `PostgresError` of kind `.decoding` on bad format.
    init(postgresText text: String) throws
    /// Decodes a column that may be NULL. The default rejects NULL; `Optional` accepts it.
    static func decode(postgresText text: String?) throws -> Self
}

extension PostgresDecodable {
    public static func decode(postgresText text: String?) throws -> Self {
        guard let text else {
            throw PostgresError(kind: .decoding, message: "unexpected NULL for non-optional \(Self.self)")
        }
        return try Self(postgresText: text)
    }
}

func decodingFailure<T>(_ type: T.Type, _ text: String) -> PostgresError {
    // Include a bounded prefix only: the value may be long or personal.
    PostgresError(kind: .decoding, message: "cannot decode \(type) from \"\(text.prefix(40))\"")
}

extension String: PostgresDecodable {
    public init(postgresText text: String) throws { self = text }
}

extension Int: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Int(text) else { throw decodingFailure(Int.self, text) }
        self = value
    }
}

extension Int64: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Int64(text) else { throw decodingFailure(Int64.self, text) }
        self = value
    }
}

extension Int32: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Int32(text) else { throw decodingFailure(Int32.self, text) }
        self = value
    }
}

extension Bool: PostgresDecodable {
    public init(postgresText text: String) throws {
        switch text {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw decodingFailure(Bool.self, text)
        }
    }
}

extension Double: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Double(text) else { throw decodingFailure(Double.self, text) }
        self = value
    }
}

extension Decimal: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard !text.isEmpty, text != "NaN",
              let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else { throw decodingFailure(Decimal.self, text) }
        self = value
    }
}

extension UUID: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = UUIDText.parse(text) else { throw decodingFailure(UUID.self, text) }
        self = value
    }
}

extension Date: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = PostgresTimestamp.parse(text) else { throw decodingFailure(Date.self, text) }
        self = value
    }
}

extension Data: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = PostgresBytea.decode(text) else { throw decodingFailure(Data.self, text) }
        self = value
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresText text: String) throws {
        self = .some(try Wrapped(postgresText: text))
    }

    public static func decode(postgresText text: String?) throws -> Self {
        guard let text else { return nil }
        return try Wrapped.decode(postgresText: text)
    }
}

extension Array: PostgresDecodable where Element: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let elements = PostgresArrayLiteral.parse(text) else { throw decodingFailure([Element].self, text) }
        self = try elements.map { try Element.decode(postgresText: $0) }
    }
}
