import Domain
import Foundation
import Postgres

/// `webhook_endpoints`: what administrators register, and the sender's verdicts on them
/// (disabled after a 410 or days of failure).
public struct WebhookEndpointStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    static let columns = """
        id, url, events, description, enabled, disabled_reason, secret, previous_secret, previous_secret_expires_at,
        created_by, failing_since, created_at, updated_at
        """

    static func decode(_ row: PostgresRow) throws -> WebhookEndpoint {
        WebhookEndpoint(id: try row.decode("id"), url: try row.decode("url"), events: try row.decode("events"),
                        description: try row.decode("description"), enabled: try row.decode("enabled"),
                        disabledReason: try row.decode("disabled_reason"), sealedSecret: try row.decode("secret"),
                        sealedPreviousSecret: try row.decode("previous_secret"),
                        previousSecretExpiresAt: try row.decode("previous_secret_expires_at"),
                        createdBy: try row.decode("created_by"), failingSince: try row.decode("failing_since"),
                        createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
    }

    public func create(url: String, events: [String], description: String, sealedSecret: String, createdBy: UUID) throws -> WebhookEndpoint {
        let rows = try pool.query("""
            INSERT INTO webhook_endpoints (url, events, description, secret, created_by)
            VALUES (\(url), \(events), \(description), \(sealedSecret), \(createdBy))
            RETURNING \(unsafeSQL: Self.columns)
            """)
        guard let row = rows.first else { throw DomainError.internalError }
        return try Self.decode(row)
    }

    public func list() throws -> [WebhookEndpoint] {
        try pool.query("SELECT \(unsafeSQL: Self.columns) FROM webhook_endpoints ORDER BY created_at, id").map(Self.decode)
    }

    public func find(id: UUID) throws -> WebhookEndpoint? {
        try pool.query("SELECT \(unsafeSQL: Self.columns) FROM webhook_endpoints WHERE id = \(id)").first.map(Self.decode)
    }

    /// Changes what is given; enabling clears the server's reason and the failure clock, so a
    /// re-enabled endpoint starts afresh with the backlog still waiting for it.
    public func update(id: UUID, url: String?, events: [String]?, description: String?, enabled: Bool?) throws -> WebhookEndpoint? {
        try pool.query("""
            UPDATE webhook_endpoints SET url = coalesce(\(url), url), events = coalesce(\(events), events),
                   description = coalesce(\(description), description), enabled = coalesce(\(enabled), enabled),
                   disabled_reason = CASE WHEN \(enabled) IS NOT NULL THEN NULL ELSE disabled_reason END,
                   failing_since = CASE WHEN \(enabled) THEN NULL ELSE failing_since END,
                   updated_at = now()
            WHERE id = \(id)
            RETURNING \(unsafeSQL: Self.columns)
            """).first.map(Self.decode)
    }

    public func delete(id: UUID) throws -> Bool {
        try pool.execute("DELETE FROM webhook_endpoints WHERE id = \(id)") == 1
    }

    /// The new secret signs from now on; the current one keeps signing beside it for `overlap`.
    public func rotate(id: UUID, sealedSecret: String, overlap: Duration) throws -> WebhookEndpoint? {
        try pool.query("""
            UPDATE webhook_endpoints SET previous_secret = secret,
                   previous_secret_expires_at = now() + make_interval(secs => \(overlap.timeInterval)),
                   secret = \(sealedSecret), updated_at = now()
            WHERE id = \(id)
            RETURNING \(unsafeSQL: Self.columns)
            """).first.map(Self.decode)
    }

    /// A success ends the failure clock.
    public func recordSuccess(id: UUID) throws {
        try pool.execute("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = \(id) AND failing_since IS NOT NULL")
    }

    /// A failure starts the clock (when it is not running); the endpoint is disabled when it
    /// has been failing for `disableAfter`. Returns the endpoint when this call disabled it.
    public func recordFailure(id: UUID, disableAfter: Duration) throws -> WebhookEndpoint? {
        try pool.execute("UPDATE webhook_endpoints SET failing_since = now() WHERE id = \(id) AND failing_since IS NULL")
        let hours = Int(disableAfter.timeInterval / 3600)
        return try pool.query("""
            UPDATE webhook_endpoints SET enabled = false, updated_at = now(),
                   disabled_reason = \("every attempt failed for \(hours) hours")
            WHERE id = \(id) AND enabled
              AND failing_since <= now() - make_interval(secs => \(disableAfter.timeInterval))
            RETURNING \(unsafeSQL: Self.columns)
            """).first.map(Self.decode)
    }

    /// Disables at once (the receiver answered 410 Gone); true when this call disabled it.
    public func disable(id: UUID, reason: String) throws -> Bool {
        try pool.execute("""
            UPDATE webhook_endpoints SET enabled = false, disabled_reason = \(reason), updated_at = now()
            WHERE id = \(id) AND enabled
            """) == 1
    }

    /// The address of the endpoint's creator while that account is active (nil otherwise), in
    /// the caller's transaction: the mail telling them the server disabled it goes there.
    public func creatorEmail(of endpoint: WebhookEndpoint, on connection: PostgresConnection) throws -> String? {
        guard let creator = endpoint.createdBy else { return nil }
        return try connection.query("SELECT email FROM users WHERE id = \(creator) AND deactivated_at IS NULL")
            .first.map { try $0.decode("email") }
    }
}
