import Domain
import Postgres

/// The sort order of `GET /v1/{listings|tasks|activities}` (`order=<field>.<asc|desc>`), as
/// the SQL of its keyset: the ORDER BY expression, the key a cursor carries, and the value a
/// cursor's key becomes again. Every order ends with `id` in the same direction, so the order
/// is total and a keyset cursor never skips or repeats a row.
///
/// Keys are integers: timestamps as microseconds since the epoch (PostgreSQL's precision, so
/// nothing is lost through rounding), `priority` as its rank low=1 < medium=2 < high=3 <
/// urgent=4 (its meaning, not the alphabet). `due_date` is nullable; rows without one come
/// last in both directions — the expression maps NULL to +infinity ascending and -infinity
/// descending, so the keyset stays a plain row comparison that `0009_list_order.sql`'s
/// expression indexes serve.
public struct ListOrder: Sendable, Equatable, Hashable {
    public enum Field: String, Sendable, CaseIterable {
        case updatedAt = "updated_at"
        case createdAt = "created_at"
        case dueDate = "due_date"
        case priority
    }

    public var field: Field
    public var descending: Bool

    public init(field: Field, descending: Bool) {
        self.field = field
        self.descending = descending
    }

    /// Oldest change first: the order lists always had.
    public static let updatedAscending = ListOrder(field: .updatedAt, descending: false)

    /// `updated_at.asc`, `due_date.desc`, …: the parameter's spelling, also kept in cursors.
    public var text: String { "\(field.rawValue).\(descending ? "desc" : "asc")" }

    /// Parses `field`, `field.asc` or `field.desc`; nil for anything else.
    public init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let field = Field(rawValue: String(parts[0])) else { return nil }
        switch parts.count == 2 ? String(parts[1]) : "asc" {
        case "asc": self.init(field: field, descending: false)
        case "desc": self.init(field: field, descending: true)
        default: return nil
        }
    }

    /// The valid range of a cursor key for this order: a forged key outside it could make
    /// PostgreSQL fail on timestamp arithmetic, so callers refuse it as a malformed cursor.
    public var keyRange: ClosedRange<Int64> {
        switch field {
        case .priority: return 1...4
        // Every instant a client can send (`Timestamp.parse`: years 0000–9999) or the server
        // stamps is inside; a key outside was forged.
        case .updatedAt, .createdAt, .dueDate: return Timestamp.microsecondRange
        }
    }

    /// Whether a cursor key may be null (only `due_date`: rows without a due date).
    public var keyIsNullable: Bool { field == .dueDate }

    static let priorityRanks = "'{low,medium,high,urgent}'::text[]"

    /// The ORDER BY expression (without direction) for row `alias`. Must stay identical to the
    /// index expressions in `0009_list_order.sql`, or the planner cannot use them.
    func expression(_ alias: String) -> String {
        switch field {
        case .updatedAt: return "\(alias).updated_at"
        case .createdAt: return "\(alias).created_at"
        case .dueDate: return "coalesce(\(alias).due_date, '\(descending ? "-infinity" : "infinity")'::timestamptz)"
        case .priority: return "array_position(\(Self.priorityRanks), \(alias).priority)"
        }
    }

    /// The key the cursor carries for row `alias` (int8; NULL only for a missing due date).
    func key(_ alias: String) -> String {
        switch field {
        case .updatedAt, .createdAt, .dueDate:
            return "(extract(epoch FROM \(alias).\(field.rawValue)) * 1000000)::int8"
        case .priority: return "array_position(\(Self.priorityRanks), \(alias).priority)::int8"
        }
    }

    /// The cursor's key as a value comparable with `expression`.
    func value(_ key: Int64?) -> PostgresQuery {
        switch field {
        case .updatedAt, .createdAt:
            return "(timestamptz 'epoch' + \(key) * interval '1 microsecond')"
        case .dueDate:
            return "coalesce(timestamptz 'epoch' + \(key) * interval '1 microsecond', \(unsafeSQL: "'\(descending ? "-infinity" : "infinity")'::timestamptz"))"
        case .priority:
            return "\(key)::int4"
        }
    }

    var direction: String { descending ? "DESC" : "ASC" }

    /// `ORDER BY` items for row `alias`.
    func orderBy(_ alias: String) -> String {
        "\(expression(alias)) \(direction), \(alias).id \(direction)"
    }

    /// The keyset condition: rows strictly after `position` in this order.
    func after(_ alias: String, _ position: KeysetPosition) -> PostgresQuery {
        "(\(unsafeSQL: expression(alias)), \(unsafeSQL: alias).id) \(unsafeSQL: descending ? "<" : ">") (\(value(position.key)), \(position.id))"
    }
}
