import Foundation

/// A value that can be sent as a text-format parameter.
public protocol PostgresEncodable: Sendable {
    /// The parameter's type OID; 0 lets the server infer it from context (needed for strings,
    /// which may target text, varchar, enums, json, …).
    static var postgresTypeOID: UInt32 { get }
    /// The OID of an array of this type, used when encoding `[Self]`; 0 when unknown.
    static var postgresArrayTypeOID: UInt32 { get }
    /// The text representation, or nil for SQL NULL.
    var postgresText: String? { get }
}

extension PostgresEncodable {
    public static var postgresTypeOID: UInt32 { 0 }
    public static var postgresArrayTypeOID: UInt32 { 0 }
}

/// Well-known type OIDs (pg_type.dat).
enum PostgresTypeOID {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let int8: UInt32 = 20
    static let int4: UInt32 = 23
    static let float8: UInt32 = 701
    static let timestamptz: UInt32 = 1184
    static let numeric: UInt32 = 1700
    static let uuid: UInt32 = 2950
    static let boolArray: UInt32 = 1000
    static let byteaArray: UInt32 = 1001
    static let int4Array: UInt32 = 1007
    static let textArray: UInt32 = 1009
    static let int8Array: UInt32 = 1016
    static let float8Array: UInt32 = 1022
    static let timestamptzArray: UInt32 = 1185
    static let numericArray: UInt32 = 1231
    static let uuidArray: UInt32 = 2951
}

extension String: PostgresEncodable {
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.textArray }
    public var postgresText: String? { self }
}

extension Int: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.int8 }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.int8Array }
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.int8 }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.int8Array }
    public var postgresText: String? { String(self) }
}

extension Int32: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.int4 }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.int4Array }
    public var postgresText: String? { String(self) }
}

extension Bool: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.bool }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.boolArray }
    public var postgresText: String? { self ? "true" : "false" }
}

extension Double: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.float8 }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.float8Array }
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        // Swift's description is the shortest text that round-trips exactly.
        return description
    }
}

extension Decimal: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.numeric }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.numericArray }
    public var postgresText: String? {
        // Decimal.description is locale-independent ("." separator, no grouping).
        isNaN ? "NaN" : description
    }
}

extension UUID: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.uuid }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.uuidArray }
    public var postgresText: String? { UUIDText.lowercase(self) }
}

extension Date: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.timestamptz }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.timestamptzArray }
    /// RFC 3339 in UTC with microseconds, the precision of timestamptz.
    public var postgresText: String? { PostgresTimestamp.format(self) }
}

extension Data: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { PostgresTypeOID.bytea }
    public static var postgresArrayTypeOID: UInt32 { PostgresTypeOID.byteaArray }
    /// bytea hex format: `\x` followed by two lowercase hex digits per byte.
    public var postgresText: String? { PostgresBytea.encode(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { Wrapped.postgresTypeOID }
    public static var postgresArrayTypeOID: UInt32 { Wrapped.postgresArrayTypeOID }
    public var postgresText: String? { self.flatMap { $0.postgresText } }
}

/// Arrays encode as array literals (`{"a","b \"c\"",NULL}`). Use `Data` for bytea: `[UInt8]`
/// is not special-cased because a type can conform to a protocol only once.
extension Array: PostgresEncodable where Element: PostgresEncodable {
    public static var postgresTypeOID: UInt32 { Element.postgresArrayTypeOID }
    public var postgresText: String? { PostgresArrayLiteral.encode(map(\.postgresText)) }
}

/// JSON text passed through unchanged; the server parses it as json or jsonb from context.
public struct PostgresJSON: PostgresEncodable, PostgresDecodable, Hashable {
    public var rawText: String
    public init(rawText: String) { self.rawText = rawText }
    public var postgresText: String? { rawText }
    public init(postgresText text: String) throws { rawText = text }
}
