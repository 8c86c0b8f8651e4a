import Domain

/// A `/rest/v1/<table>` read after parsing: every column named in it comes from the
/// resource's description (`Resource.description`), so the SQL built from it only ever splices
/// described identifiers, and every value travels as a bound parameter cast to its column's type.
public struct RestReadQuery: Sendable {
    public var resource: Resource
    /// nil: `select=*` (the row's `dispatch_json`).
    public var columns: [ColumnDescription]?
    /// The filters, ANDed (repeated keys and `and=(…)`), with `or=(…)` trees inside.
    public var conditions: [RestCondition]
    public var order: [RestOrderTerm]
    public var offset: Int
    /// nil: every row (streamed, never capped).
    public var limit: Int?

    public init(resource: Resource, columns: [ColumnDescription]? = nil, conditions: [RestCondition] = [],
                order: [RestOrderTerm] = [], offset: Int = 0, limit: Int? = nil) {
        self.resource = resource
        self.columns = columns
        self.conditions = conditions
        self.order = order
        self.offset = offset
        self.limit = limit
    }
}

/// One filter, or a logic tree of them (PostgREST's `or=(…)`, `and(…)`, `not.`).
public indirect enum RestCondition: Sendable, Equatable {
    case all([RestCondition])
    case any([RestCondition])
    case not(RestCondition)
    /// `column <op> value`; `value` is text the database casts to the column's type.
    case compare(ColumnDescription, RestComparison, String)
    /// `column IS NULL / TRUE / FALSE / UNKNOWN`.
    case isValue(ColumnDescription, RestIsValue)
    /// `column IN (values…)`; an empty list matches nothing.
    case inList(ColumnDescription, [String])
    /// A delta-polling bound (`updated_at=gt.X` / `gte.X`) served as
    /// `column >= X − overlap`: see `RestDeltaWindow`.
    case since(ColumnDescription, String, overlapMilliseconds: Int64)
}

public enum RestComparison: String, Sendable, CaseIterable {
    case eq, neq, gt, gte, lt, lte, like, ilike

    var sqlOperator: String {
        switch self {
        case .eq: "="
        case .neq: "<>"
        case .gt: ">"
        case .gte: ">="
        case .lt: "<"
        case .lte: "<="
        case .like: "LIKE"
        case .ilike: "ILIKE"
        }
    }
}

public enum RestIsValue: String, Sendable {
    case null = "NULL"
    case notNull = "NOT NULL"
    case isTrue = "TRUE"
    case isFalse = "FALSE"
    case unknown = "UNKNOWN"
}

/// `order=column.desc.nullslast`.
public struct RestOrderTerm: Sendable, Equatable {
    public var column: ColumnDescription
    public var descending: Bool
    /// nil: PostgreSQL's default (nulls last ascending, first descending).
    public var nullsFirst: Bool?

    public init(column: ColumnDescription, descending: Bool = false, nullsFirst: Bool? = nil) {
        self.column = column
        self.descending = descending
        self.nullsFirst = nullsFirst
    }
}
