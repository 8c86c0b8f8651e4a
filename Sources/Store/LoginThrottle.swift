import Foundation
import Postgres

/// Limits failed sign-ins per account and per client address, counted in PostgreSQL so every
/// server instance shares the counts (a per-process counter would multiply the limit).
public struct LoginThrottle: Sendable {
    public struct Limits: Sendable {
        public var window: Duration
        public var failuresPerEmail: Int
        public var failuresPerAddress: Int
        public init(window: Duration = .seconds(15 * 60), failuresPerEmail: Int = 5, failuresPerAddress: Int = 20) {
            self.window = window
            self.failuresPerEmail = failuresPerEmail
            self.failuresPerAddress = failuresPerAddress
        }
    }

    let pool: PostgresPool
    public let limits: Limits

    public init(pool: PostgresPool, limits: Limits = Limits()) {
        self.pool = pool
        self.limits = limits
    }

    private var windowSeconds: Int64 { limits.window.components.seconds }

    /// Seconds until another attempt is allowed, or nil when it is allowed now. The wait ends
    /// when the oldest failure that still counts leaves the window.
    public func retryAfter(email: String, clientAddress: String) throws -> Int? {
        let rows = try pool.query("""
            WITH recent AS (
                SELECT email, client_address, attempted_at FROM login_attempts
                WHERE NOT succeeded AND attempted_at > now() - make_interval(secs => \(windowSeconds))
                  AND (email = lower(\(email)) OR client_address = \(clientAddress))
            ), by_email AS (
                SELECT attempted_at FROM recent WHERE email = lower(\(email))
                ORDER BY attempted_at DESC OFFSET \(limits.failuresPerEmail - 1) LIMIT 1
            ), by_address AS (
                SELECT attempted_at FROM recent WHERE client_address = \(clientAddress)
                ORDER BY attempted_at DESC OFFSET \(limits.failuresPerAddress - 1) LIMIT 1
            )
            SELECT ceil(extract(epoch FROM max(attempted_at) + make_interval(secs => \(windowSeconds)) - now()))::bigint AS wait
            FROM (SELECT attempted_at FROM by_email UNION ALL SELECT attempted_at FROM by_address) AS limiting
            """)
        guard let wait: Int64 = try rows.first?.decode("wait") else { return nil }
        return max(1, Int(wait))
    }

    /// Records an attempt and prunes rows older than the window (cheap: indexed, and rare).
    public func record(email: String, clientAddress: String, succeeded: Bool) throws {
        try pool.execute("""
            INSERT INTO login_attempts (email, client_address, succeeded) VALUES (lower(\(email)), \(clientAddress), \(succeeded))
            """)
        if !succeeded, Int.random(in: 0..<100) == 0 {
            try pool.execute("DELETE FROM login_attempts WHERE attempted_at < now() - make_interval(secs => \(windowSeconds))")
        }
    }
}
