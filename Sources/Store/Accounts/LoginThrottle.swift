import Foundation
import Postgres

/// Limits failed password guesses (sign-in, and `current_password` on PATCH /v1/me), counted in
/// PostgreSQL so every server instance shares the counts (a per-process counter would multiply
/// the limit).
///
/// A request from a device the account signed in on before (`SignInDevices`, the
/// `dispatch_device` cookie) meets one limit only, its own:
/// - per (account, known device): `failuresPerAccountAndAddress` failures. Nobody else's
///   failures count here, so wherever sources look alike (one office NAT, a proxy without
///   TRUSTED_PROXIES) another person's wrong passwords never lock the owner out of a device
///   they used before (docs/operators/security.md, "Sign-in limits").
/// Every other request (no cookie, a forged one, a device known only for other accounts)
/// meets three limits, each over a sliding `window`, counting failures from such sources only:
/// - per (account, client address): a client guessing one account stops after a few tries.
/// - per client address, across accounts: stops one client spraying many accounts. It does
///   not apply to an account that has signed in from that address during the last
///   `knownAddressDays`: an office behind one NAT address is the normal case, and one person's
///   spray must not lock their colleagues out. The sprayer still meets the
///   per-(account, address) limit on every account it tries.
/// - per account, across addresses: caps a distributed guess at one account, known addresses
///   included. So, per account and window, at most `failuresPerAccount` wrong passwords come
///   from anything but the account's own devices, and `failuresPerAccountAndAddress` from each
///   of those (their tokens are only on devices where the password was typed right).
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
    /// `knownDevice`: the token hash of a device `SignInDevices` knows for this account.
    public func retryAfter(email: String, clientAddress: String, knownDevice: String? = nil) throws -> Int? {
        let rows = try pool.query(knownDevice.map { deviceQuery(email: email, device: $0) }
                                  ?? sourceQuery(email: email, clientAddress: clientAddress))
        guard let wait: Int64 = try rows.first?.decode("wait") else { return nil }
        return max(1, Int(wait))
    }

    private func deviceQuery(email: String, device: String) -> PostgresQuery {
        """
        SELECT ceil(extract(epoch FROM attempted_at + make_interval(secs => \(windowSeconds)) - now()))::bigint AS wait
        FROM login_attempts
        WHERE NOT succeeded AND attempted_at > now() - make_interval(secs => \(windowSeconds))
          AND email = lower(\(email)) AND device_hash = \(device)
        ORDER BY attempted_at DESC OFFSET \(limits.failuresPerAccountAndAddress - 1) LIMIT 1
        """
    }

    private func sourceQuery(email: String, clientAddress: String) -> PostgresQuery {
        """
        WITH recent AS (
            SELECT email, client_address, attempted_at FROM login_attempts
            WHERE NOT succeeded AND device_hash IS NULL AND attempted_at > now() - make_interval(secs => \(windowSeconds))
              AND (email = lower(\(email)) OR client_address = \(clientAddress))
        ), known_address AS (
            -- The account signed in from this address lately: the address-wide limit does not
            -- apply to it (the per-pair and account-wide ones do).
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
            ORDER BY attempted_at DESC OFFSET \(limits.failuresPerAccount - 1) LIMIT 1
        )
        SELECT ceil(extract(epoch FROM max(attempted_at) + make_interval(secs => \(windowSeconds)) - now()))::bigint AS wait
        FROM (SELECT attempted_at FROM by_pair UNION ALL SELECT attempted_at FROM by_address
              UNION ALL SELECT attempted_at FROM by_account) AS limiting
        """
    }

    /// Records an attempt and prunes rows older than the window (cheap: indexed, and rare).
    /// `knownDevice`: as for `retryAfter`; its failures count against that device alone.
    public func record(email: String, clientAddress: String, knownDevice: String? = nil, succeeded: Bool) throws {
        try pool.execute("""
            INSERT INTO login_attempts (email, client_address, device_hash, succeeded)
            VALUES (lower(\(email)), \(clientAddress), \(knownDevice), \(succeeded))
            """)
        if !succeeded, Int.random(in: 0..<100) == 0 {
            try pool.execute("DELETE FROM login_attempts WHERE attempted_at < now() - make_interval(secs => \(windowSeconds))")
        }
    }
}
