import Domain
import Foundation
import Postgres

/// The one Slack workspace this server is connected to (`slack_integration`, a singleton row).
/// The signing secrets and the incoming webhook URL arrive here already sealed: this store
/// never sees them in the clear.
public struct SlackIntegrationStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Record: Sendable, Equatable {
        public var teamID: String
        public var signingSecret: String
        public var previousSigningSecret: String?
        public var incomingWebhookURL: String
        public var events: [String]
        public var pausedAt: Date?
        public var pauseReason: String?
        public var createdAt: Date
        public var updatedAt: Date
    }

    static let columns = """
        team_id, signing_secret, previous_signing_secret, incoming_webhook_url, events, paused_at, pause_reason,
        created_at, updated_at
        """

    static func decode(_ row: PostgresRow) throws -> Record {
        Record(teamID: try row.decode("team_id"), signingSecret: try row.decode("signing_secret"),
               previousSigningSecret: try row.decode("previous_signing_secret"),
               incomingWebhookURL: try row.decode("incoming_webhook_url"), events: try row.decode("events"),
               pausedAt: try row.decode("paused_at"), pauseReason: try row.decode("pause_reason"),
               createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
    }

    public func get() throws -> Record? {
        try pool.query("SELECT \(unsafeSQL: Self.columns) FROM slack_integration").first.map(Self.decode)
    }

    /// Creates or replaces the integration and resumes it: storing it again is how an
    /// administrator answers a pause (a new webhook URL, an unarchived channel). History from
    /// before the first save is never posted; on a later save the scan goes on where it was.
    public func save(teamID: String, signingSecret: String, previousSigningSecret: String?, incomingWebhookURL: String,
                     events: [String]) throws -> Record {
        let rows = try pool.query("""
            INSERT INTO slack_integration (team_id, signing_secret, previous_signing_secret, incoming_webhook_url, events)
            VALUES (\(teamID), \(signingSecret), \(previousSigningSecret), \(incomingWebhookURL), \(events))
            ON CONFLICT (singleton) DO UPDATE SET team_id = EXCLUDED.team_id, signing_secret = EXCLUDED.signing_secret,
                previous_signing_secret = EXCLUDED.previous_signing_secret,
                incoming_webhook_url = EXCLUDED.incoming_webhook_url, events = EXCLUDED.events,
                paused_at = NULL, pause_reason = NULL, next_post_at = now(), updated_at = now()
            RETURNING \(unsafeSQL: Self.columns)
            """)
        guard let row = rows.first else { throw DomainError.internalError }
        return try Self.decode(row)
    }

    /// Removes the integration and the posts still waiting for it; false when there was none.
    public func delete() throws -> Bool {
        try pool.withTransaction { connection in
            try connection.execute("DELETE FROM slack_outbox WHERE kind = 'post' AND sent_at IS NULL AND dead_at IS NULL")
            return try connection.execute("DELETE FROM slack_integration") == 1
        }
    }

    /// Posting starts again (an admin fixed the channel); false when it was not paused.
    public func resume() throws -> Bool {
        try pool.execute("""
            UPDATE slack_integration SET paused_at = NULL, pause_reason = NULL, next_post_at = now(), updated_at = now()
            WHERE paused_at IS NOT NULL
            """) == 1
    }

    /// Slack said the hook or its channel is gone: nothing is posted until the next `save`.
    public func pause(reason: String) throws {
        try pool.execute("""
            UPDATE slack_integration SET paused_at = now(), pause_reason = \(String(reason.prefix(500))), updated_at = now()
            WHERE paused_at IS NULL
            """)
    }
}
