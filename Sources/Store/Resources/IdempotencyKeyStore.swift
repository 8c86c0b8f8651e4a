import Foundation
import Postgres

/// The answers kept for `Idempotency-Key` (migrations/0032): one row per caller, route and
/// key, claimed before the request runs and filled with its answer when it succeeded.
public struct IdempotencyKeyStore: Sendable {
    /// How long an answer is replayed.
    public static let retentionHours = 24
    /// A claim without an answer this old belongs to a request whose server died: another
    /// request may take the key over. Longer than any request can run.
    static let abandonedAfterSeconds = 120

    public enum Claim: Sendable, Equatable {
        /// Run the request: this caller now holds the key.
        case execute
        /// Another request with this key is still running.
        case inProgress
        /// The key was used with a different request.
        case mismatch
        /// The key's first answer, to send again.
        case replay(Answer)
    }

    /// A kept answer: what a retry is sent again.
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var contentType: String?
        public var location: String?
        public var etag: String?
        public var body: String

        public init(status: Int, contentType: String?, location: String?, etag: String?, body: String) {
            self.status = status
            self.contentType = contentType
            self.location = location
            self.etag = etag
            self.body = body
        }
    }

    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func claim(caller: UUID, route: String, key: String, fingerprint: String) throws -> Claim {
        try pool.withConnection { connection in
            let claimed = try connection.query("""
                INSERT INTO idempotency_keys AS k (caller, route, key, fingerprint) VALUES (\(caller), \(route), \(key), \(fingerprint))
                ON CONFLICT (caller, route, key) DO UPDATE
                    SET fingerprint = EXCLUDED.fingerprint, status = NULL, content_type = NULL, location = NULL, etag = NULL,
                        body = NULL, created_at = now()
                    WHERE k.created_at < now() - make_interval(hours => \(Self.retentionHours)::int)
                       OR (k.status IS NULL AND k.created_at < now() - make_interval(secs => \(Self.abandonedAfterSeconds)))
                RETURNING 1 AS claimed
                """)
            if !claimed.isEmpty { return .execute }
            let rows = try connection.query("""
                SELECT fingerprint, status, content_type, location, etag, body FROM idempotency_keys
                WHERE caller = \(caller) AND route = \(route) AND key = \(key)
                """)
            // Gone in between (its request failed and gave the key back): the retry may run.
            guard let row = rows.first else { return .inProgress }
            guard try row.decode("fingerprint", as: String.self) == fingerprint else { return .mismatch }
            guard let status: Int = try row.decode("status") else { return .inProgress }
            return .replay(Answer(status: status, contentType: try row.decode("content_type"), location: try row.decode("location"),
                                  etag: try row.decode("etag"), body: try row.decode("body") ?? ""))
        }
    }

    /// Keeps the answer of the request that holds the key.
    public func complete(caller: UUID, route: String, key: String, answer: Answer) throws {
        try pool.execute("""
            UPDATE idempotency_keys SET status = \(answer.status), content_type = \(answer.contentType),
                location = \(answer.location), etag = \(answer.etag), body = \(answer.body)
            WHERE caller = \(caller) AND route = \(route) AND key = \(key) AND status IS NULL
            """)
    }

    /// Gives the key back: the request failed, and a retry must run it again.
    public func release(caller: UUID, route: String, key: String) throws {
        try pool.execute("""
            DELETE FROM idempotency_keys WHERE caller = \(caller) AND route = \(route) AND key = \(key) AND status IS NULL
            """)
    }

    /// Deletes answers past their 24 hours; returns how many.
    public func prune() throws -> Int {
        try pool.execute("DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => \(Self.retentionHours)::int)")
    }
}
