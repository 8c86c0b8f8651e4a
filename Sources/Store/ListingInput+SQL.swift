import Domain
import Foundation
import Postgres

extension ListingInput {
    /// The bound value of `field` (its column has the field's JSON name).
    func sqlValue(_ field: Field) -> PostgresQuery {
        switch field {
        case .address: return "\(address)"
        case .city: return "\(city)"
        case .province: return "\(province)"
        case .postalCode: return "\(postalCode)"
        case .country: return "\(country)"
        case .price: return "\(price)"
        case .mlsNumber: return "\(mlsNumber)"
        case .listingType: return "\(listingType.rawValue)"
        case .status: return "\(status.rawValue)"
        case .ownedBy: return "\(ownedBy)"
        case .assignedStaff: return "\(assignedStaff)"
        case .createdVia: return "\(createdVia.rawValue)"
        case .sourceSlackMessages: return "\(sourceSlackMessages)"
        }
    }

    /// TRUE when every field the client sent equals the row's (an idempotent create replay).
    func sameAsRow(_ alias: String) -> PostgresQuery {
        let parts = Field.allCases.filter { provided.contains($0) || ($0 == .ownedBy && ownedBy != nil) }.map {
            "\(unsafeSQL: alias).\(unsafeSQL: $0.rawValue) IS NOT DISTINCT FROM \(sqlValue($0))" as PostgresQuery
        }
        return parts.isEmpty ? "TRUE" : "(\(PostgresQuery.joined(parts, separator: " AND ")))"
    }
}
