/// One synced resource, described once: its table, its columns and who writes them, and which
/// visibility rule guards it (contract §1–§2).
///
/// Everything that needs to know a resource's shape reads it from here instead of keeping its
/// own list: the `/v1` stores and input checks, the sync feed, the Supabase-compatible
/// `/rest/v1` surface (its column whitelist and parameter types), and the test that holds
/// `openapi.yaml` to these columns. Adding a column is a migration plus one line in
/// `Resource+Catalog.swift`.
public struct ResourceDescription: Sendable, Equatable {
    /// The resource's name in URLs, the sync feed and `/rest/v1` (also its table name).
    public let name: String
    /// The table; a fixed identifier, safe to splice into SQL.
    public let table: String
    /// In the order of the table and of the JSON the server emits.
    public let columns: [ColumnDescription]
    /// Which rule of contract §2 decides who sees a row.
    public let visibility: VisibilityRule
    /// How a row is deleted: soft deletes keep a tombstone the sync feed can send.
    public let deletion: DeletionStyle

    public init(name: String, table: String, columns: [ColumnDescription],
                visibility: VisibilityRule, deletion: DeletionStyle) {
        self.name = name
        self.table = table
        self.columns = columns
        self.visibility = visibility
        self.deletion = deletion
    }

    /// The column called `name`, if the resource has one (case-sensitive, like PostgREST).
    public func column(_ name: String) -> ColumnDescription? {
        columns.first { $0.name == name }
    }

    /// Columns a client may send on create.
    public var creatableColumns: [ColumnDescription] {
        columns.filter { $0.access == .writable || $0.access == .createOnly }
    }

    /// Columns a client may change on an existing row.
    public var updatableColumns: [ColumnDescription] {
        columns.filter { $0.access == .writable }
    }
}

/// One column: its name (also its JSON key), its type, who writes it, and — for columns
/// clients write — how a sent value is checked and what a write that leaves it out stores.
/// The generic input parser and the store's INSERT/UPDATE read these; nothing else lists them.
public struct ColumnDescription: Sendable, Equatable {
    public let name: String
    public let type: ColumnType
    public let nullable: Bool
    public let access: ColumnAccess
    /// How a client's value is checked (from the type unless the description says otherwise).
    public let rule: ValueRule
    /// What a create or replace stores when the body leaves the column out.
    public let omitted: OmittedValue

    /// `omitted` defaults to NULL for a nullable column, "" for text, and otherwise to
    /// `.required`, so a non-null column without a stated default cannot be left out silently.
    public init(_ name: String, _ type: ColumnType, nullable: Bool = false, access: ColumnAccess,
                rule: ValueRule? = nil, omitted: OmittedValue? = nil) {
        self.name = name
        self.type = type
        self.nullable = nullable
        self.access = access
        self.rule = rule ?? ValueRule.defaultRule(for: type)
        self.omitted = omitted ?? (nullable ? .value(.null) : type == .text ? .value(.text("")) : .required)
    }
}

/// A column's value type, as stored and as it travels in JSON.
public enum ColumnType: Sendable, Equatable {
    case uuid
    case text
    /// A text column restricted to these values by a CHECK constraint.
    case enumeration([String])
    case integer
    /// `numeric(12,2)`: travels as a JSON number.
    case decimal
    case boolean
    /// `timestamptz`: travels as RFC 3339 UTC with milliseconds.
    case timestamp
    /// `text[]`.
    case textArray

    /// The PostgreSQL type a bound parameter is cast to when compared with this column.
    public var sqlType: String {
        switch self {
        case .uuid: "uuid"
        case .text, .enumeration: "text"
        case .integer: "integer"
        case .decimal: "numeric"
        case .boolean: "boolean"
        case .timestamp: "timestamptz"
        case .textArray: "text[]"
        }
    }
}

/// Who writes a column.
public enum ColumnAccess: Sendable, Equatable {
    /// Sent by clients on create and on update.
    case writable
    /// Sent by clients on create only; fixed afterwards (a note's parent, an explicit id).
    case createOnly
    /// Written by the server only (stamps, version, the caller's id, claim and history
    /// columns): clients' values are ignored or refused, never stored.
    case server
}

/// The rules of contract §2, by shape; `Store.Visibility` turns each into SQL.
public enum VisibilityRule: Sendable, Equatable {
    /// Every signed-in user sees every active user (names and avatars are shared);
    /// deactivated users are visible to admins only.
    case activeUsers
    /// Owner, assigned staff, or author/claimer of a work item on the listing.
    case listing
    /// Declarer, claimer, or owner/staff of its listing.
    case workItem
    /// Visible when its parent (`parent_type`, `parent_id`) is.
    case child(typeColumn: String, idColumn: String)
}

/// How rows leave.
public enum DeletionStyle: Sendable, Equatable {
    /// `deleted_at` is set (and `status = 'deleted'` where the resource has a status).
    case softDelete
    /// Users are deactivated (`deactivated_at`), never deleted.
    case deactivate
    /// History rows are append-only: never deleted.
    case never
}
