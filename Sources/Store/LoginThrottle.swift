import Foundation
import Postgres

/// Limits failed password guesses (sign-in, and `current_password` on PATCH /v1/me), counted in
/// PostgreSQL so every server instance shares the counts (a per-process counter would multiply
/// the limit).
///
/// Three limits, each over a sliding `window`, chosen so that nobody can lock out people they
/// do not share an address with (docs/explanations/decisions.md, "Sign-in throttling", has the reasoning):
/// - per (account, client address): a client guessing one account stops after a few tries;
///   the same account signs in fine from every other client.
/// - per client address, across accounts: stops one client spraying many accounts. It does
///   not apply to an account that has signed in from that address during the last
///   `knownAddressDays`: an office behind one NAT address is the normal case, and one person's
///   spray must not lock their colleagues out (issue 25). The sprayer still meets the
///   per-(account, address) limit on every account it tries.
/// - per account, across addresses (looser): caps a distributed guess at one account. It
///   does not apply to addresses the account has signed in from during the last
///   `knownAddressDays`, so the targeted user still gets in from their usual network.
/// The client address is the real client's (`RequestContext.clientAddress`, trusted proxies).
public struct LoginThrottle: Sendable {
    public struct Limits: Sendable {
        public var window: Duration
        public var failuresPerAccountAndAddress: Int
        public var failuresPerAddress: Int
        public var failuresPerAccount: Int
        public var knownAddressDays: Int
        public init(window: Duration = .seconds(15 * 60), failuresPerAccountAndAddress: Int = 5,
                    failuresPerAddress: Int = 20, failuresPerAccount: Int = 50, knownAddressDays: Int = 30) {
            self.window = window
            self.failuresPerAccountAndAddress = failuresPerAccountAndAddress
            self.failuresPerAddress = failuresPerAddress
            self.failuresPerAccount = failuresPerAccount
            self.knownAddressDays = knownAddressDays
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
    /// when the oldest failure that still counts toward a reached limit leaves the window.
    public func retryAfter(email: String, clientAddress: String) throws -> Int? {
        let rows = try pool.query("""
            WITH recent AS (
                SELECT email, client_address, attempted_at FROM login_attempts
                WHERE NOT succeeded AND attempted_at > now() - make_interval(secs => \(windowSeconds))
                  AND (email = lower(\(email)) OR client_address = \(clientAddress))
            ), known_address AS (
                -- The account signed in from this address lately: neither the address-wide nor
                -- the account-wide limit applies to it (only the per-pair one does).
                SELECT EXISTS (
                    SELECT 1 FROM auth_sessions s JOIN users u ON u.id = s.user_id
                    WHERE lower(u.email) = lower(\(email)) AND s.client_address = \(clientAddress)
                      AND s.created_at > now() - make_interval(secs => \(Int64(limits.knownAddressDays) * 86_400))
                ) AS known
            ), by_pair AS (
                SELECT attempted_at FROM recent WHERE email = lower(\(email)) AND client_address = \(clientAddress)
                ORDER BY attempted_at DESC OFFSET \(limits.failuresPerAccountAndAddress - 1) LIMIT 1
            ), by_address AS (
                SELECT attempted_at FROM recent WHERE client_address = \(clientAddress)
                  AND NOT (SELECT known FROM known_address)
                ORDER BY attempted_at DESC OFFSET \(limits.failuresPerAddress - 1) LIMIT 1
            ), by_account AS (
                SELECT attempted_at FROM recent WHERE email = lower(\(email))
                  AND NOT (SELECT known FROM known_address)
                ORDER BY attempted_at DESC OFFSET \(limits.failuresPerAccount - 1) LIMIT 1
            )
            SELECT ceil(extract(epoch FROM max(attempted_at) + make_interval(secs => \(windowSeconds)) - now()))::bigint AS wait
            FROM (SELECT attempted_at FROM by_pair UNION ALL SELECT attempted_at FROM by_address
                  UNION ALL SELECT attempted_at FROM by_account) AS limiting
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
