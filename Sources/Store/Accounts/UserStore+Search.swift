import Domain
import Foundation
import Postgres

extension UserStore {
    /// Where a page of the directory starts: after this (lower(name), id).
    public struct SearchPosition: Sendable, Equatable {
        public var name: String
        public var id: UUID
        public init(name: String, id: UUID) {
            self.name = name
            self.id = id
        }
    }

    /// People whose name or email contains `text` (case-insensitive; all when empty), deactivated
    /// included, ordered by (lower(name), id) and paged by keyset after `after`; `more` says
    /// whether another page follows. For the console's People list.
    public func search(_ text: String, after: SearchPosition?, limit: Int) throws -> (users: [User], more: Bool) {
        let pattern = "%" + text.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
        let rows = try pool.query("""
            SELECT \(unsafeSQL: UserRow.columns) FROM users u
            WHERE (lower(u.name) LIKE \(pattern) OR lower(u.email) LIKE \(pattern))
              AND (\(after?.name)::text IS NULL OR (lower(u.name), u.id) > (\(after?.name), \(after?.id)))
            ORDER BY lower(u.name), u.id LIMIT \(limit + 1)
            """)
        let users = try rows.map(UserRow.decode)
        return (Array(users.prefix(limit)), users.count > limit)
    }
}
