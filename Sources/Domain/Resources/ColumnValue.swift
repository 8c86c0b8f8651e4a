import Foundation

/// One column's value after validation, as the generic write input (`ResourceInput`) carries
/// it. Enumeration columns carry their text; `null` is SQL NULL. The store binds each case as
/// the column's PostgreSQL type (`ResourceInput+SQL.swift`).
public enum ColumnValue: Sendable, Equatable {
    case null
    case text(String)
    case uuid(UUID)
    case integer(Int)
    case decimal(Decimal)
    case boolean(Bool)
    case timestamp(Date)
    case textArray([String])

    /// The text of a text or enumeration value; nil for anything else.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The id of a uuid value; nil for anything else (including `null`).
    public var uuid: UUID? {
        if case .uuid(let value) = self { return value }
        return nil
    }
}
