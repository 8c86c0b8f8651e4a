import Domain
import Foundation
import Postgres

/// Which Dispatch account a Slack user acts as (`slack_user_links`), set by administrators.
public struct SlackUserLinkStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Link: Sendable, Equatable {
        public var slackUserID: String
        public var userID: UUID
        public var createdAt: Date
    }

    /// The active account linked to `slackUserID` and whether it is an admin; nil when the
    /// Slack user is not linked or the account is deactivated (a deactivated person creates
    /// nothing, from Slack either).
    public func account(slackUserID: String) throws -> (id: UUID, isAdmin: Bool)? {
        let rows = try pool.query("""
            SELECT u.id, u.user_type = 'admin' AS is_admin FROM slack_user_links l JOIN users u ON u.id = l.user_id
            WHERE l.slack_user_id = \(slackUserID) AND u.deactivated_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        return (try row.decode("id"), try row.decode("is_admin"))
    }

    /// Links (or relinks) `userID` to `slackUserID`; 404 when the account does not exist,
    /// 409 when that Slack user is already another account's.
    public func link(userID: UUID, slackUserID: String, by admin: UUID) throws -> Link {
        try pool.withTransaction { connection in
            guard try !connection.query("SELECT 1 FROM users WHERE id = \(userID)").isEmpty else {
                throw DomainError.notFound("user")
            }
            let taken = try connection.query("SELECT user_id FROM slack_user_links WHERE slack_user_id = \(slackUserID)")
            if let holder: UUID = try taken.first?.decode("user_id"), holder != userID {
                throw DomainError(.conflict, .conflict, "That Slack user is already linked to another account.")
            }
            try connection.execute("DELETE FROM slack_user_links WHERE user_id = \(userID)")
            let rows = try connection.query("""
                INSERT INTO slack_user_links (slack_user_id, user_id, linked_by) VALUES (\(slackUserID), \(userID), \(admin))
                RETURNING slack_user_id, user_id, created_at
                """)
            guard let row = rows.first else { throw DomainError.internalError }
            return try Self.decode(row)
        }
    }

    public func unlink(userID: UUID) throws -> Bool {
        try pool.execute("DELETE FROM slack_user_links WHERE user_id = \(userID)") == 1
    }

    public func find(userID: UUID) throws -> Link? {
        try pool.query("SELECT slack_user_id, user_id, created_at FROM slack_user_links WHERE user_id = \(userID)")
            .first.map(Self.decode)
    }

    public func list() throws -> [Link] {
        try pool.query("SELECT slack_user_id, user_id, created_at FROM slack_user_links ORDER BY created_at, slack_user_id")
            .map(Self.decode)
    }

    static func decode(_ row: PostgresRow) throws -> Link {
        Link(slackUserID: try row.decode("slack_user_id"), userID: try row.decode("user_id"), createdAt: try row.decode("created_at"))
    }
}
