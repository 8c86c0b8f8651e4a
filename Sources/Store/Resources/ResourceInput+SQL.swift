import Domain
import Foundation
import Postgres

/// The SQL of a write, generated from the resource's description: which columns an INSERT
/// fills, what an UPDATE sets (every writable column on replace, the sent ones on `PATCH`),
/// and whether a stored row already holds what a create sent. Stores add only their rules'
/// columns (status stamps, the declarer) as `ServerValue`s.
extension ResourceInput {
    /// The writable columns of `description` a write stores, with their values, in table order.
    func written(_ description: ResourceDescription, patch: Bool) -> [(column: ColumnDescription, value: ColumnValue)] {
        description.updatableColumns.compactMap { column in value(column, patch: patch).map { (column, $0) } }
    }

    /// `column = value` for every column the write stores.
    func assignments(_ description: ResourceDescription, patch: Bool) -> [PostgresQuery] {
        written(description, patch: patch).map {
            "\(unsafeSQL: $0.column.name) = \($0.value.bound(as: $0.column.type))" as PostgresQuery
        }
    }

    /// TRUE when row `alias` holds every value the client sent (an idempotent create replay).
    func sameAsRow(_ description: ResourceDescription, _ alias: String) -> PostgresQuery {
        let parts = description.updatableColumns.compactMap { column -> PostgresQuery? in
            guard let value = sent[column.name] else { return nil }
            return "\(unsafeSQL: alias).\(unsafeSQL: column.name) IS NOT DISTINCT FROM \(value.bound(as: column.type))"
        }
        return parts.isEmpty ? "TRUE" : "(\(PostgresQuery.joined(parts, separator: " AND ")))"
    }
}

/// A column a store's rules write beside the client's (a status stamp, the declarer): its
/// name and its SQL value.
struct ServerValue {
    let column: String
    let value: PostgresQuery
}

extension ColumnValue {
    /// The value as a bound parameter; NULL is typed like the column (as the hand-written
    /// binds were) so comparisons such as `IS NOT DISTINCT FROM` resolve their type.
    func bound(as type: ColumnType) -> PostgresQuery {
        switch self {
        case .text(let text): return "\(text)"
        case .uuid(let id): return "\(id)"
        case .integer(let number): return "\(number)"
        case .decimal(let amount): return "\(amount)"
        case .boolean(let flag): return "\(flag)"
        case .timestamp(let date): return "\(date)"
        case .textArray(let texts): return "\(texts)"
        case .null:
            switch type {
            case .uuid: return "\(nil as UUID?)"
            case .text, .enumeration: return "\(nil as String?)"
            case .integer: return "\(nil as Int?)"
            case .decimal: return "\(nil as Decimal?)"
            case .boolean: return "\(nil as Bool?)"
            case .timestamp: return "\(nil as Date?)"
            case .textArray: return "\(nil as [String]?)"
            }
        }
    }
}
