import Foundation
import Postgres

/// Finds listings by their address, for the console's filters: an office names a listing by
/// where it is, never by its id. Deleted listings are left out.
public struct ListingAddressLookup: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Match: Sendable, Equatable {
        public var id: UUID
        public var address: String
        public var city: String
    }

    /// The listing whose address is exactly `text` (ignoring case) when there is one, otherwise
    /// up to `limit` listings whose address or city contains it, alphabetically.
    public func find(_ text: String, limit: Int = 6) throws -> [Match] {
        let pattern = "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        let rows = try pool.query("""
            SELECT id, address, city, lower(address) = lower(\(text)) AS exact FROM listings
            WHERE status <> 'deleted' AND (address ILIKE \(pattern) OR city ILIKE \(pattern))
            ORDER BY exact DESC, address, id LIMIT \(limit)
            """)
        let matches = try rows.map { row in
            (Match(id: try row.decode("id"), address: try row.decode("address"), city: try row.decode("city")), try row.decode("exact", as: Bool.self))
        }
        if let first = matches.first, first.1, matches.dropFirst().first?.1 != true { return [first.0] }
        return matches.map(\.0)
    }

    /// The address of the listing `id`, to show a filter chosen from a link.
    public func address(of id: UUID) throws -> String? {
        try pool.query("SELECT address FROM listings WHERE id = \(id)").first.map { try $0.decode("address") }
    }
}
