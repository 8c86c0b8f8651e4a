import Domain
import Foundation
import Postgres

extension WorkItemInput {
    /// The fields (= columns) a kind has: `type` and `duration_seconds` are activities' only.
    static func fields(_ kind: WorkItemKind) -> [Field] {
        Field.allCases.filter { kind == .activity || ($0 != .type && $0 != .durationSeconds) }
    }

    /// The bound value of `field` (its column has the field's JSON name).
    func sqlValue(_ field: Field) -> PostgresQuery {
        switch field {
        case .title: return "\(title)"
        case .description: return "\(description)"
        case .dueDate: return "\(dueDate)"
        case .priority: return "\(priority.rawValue)"
        case .status: return "\(status.rawValue)"
        case .listingID: return "\(listingID)"
        case .createdVia: return "\(createdVia.rawValue)"
        case .sourceSlackMessages: return "\(sourceSlackMessages)"
        case .type: return "\(type.rawValue)"
        case .durationSeconds: return "\(durationSeconds)"
        }
    }

    /// TRUE when every field the client sent equals the row's (an idempotent create replay).
    func sameAsRow(_ alias: String, _ kind: WorkItemKind) -> PostgresQuery {
        let parts = Self.fields(kind).filter { provided.contains($0) }.map {
            "\(unsafeSQL: alias).\(unsafeSQL: $0.rawValue) IS NOT DISTINCT FROM \(sqlValue($0))" as PostgresQuery
        }
        return parts.isEmpty ? "TRUE" : "(\(PostgresQuery.joined(parts, separator: " AND ")))"
    }
}
