import Foundation
import Postgres

/// The devices each account signed in on, known by the SHA-256 of the long-lived device token
/// a successful sign-in hands out (`dispatch_device` cookie). `LoginThrottle` gives a known
/// device a failure budget of its own, so where the server cannot tell sources apart (one
/// office NAT, a proxy without TRUSTED_PROXIES) another person's wrong passwords never lock
/// the owner out of a device they used before. The token grants nothing else: no session, no
/// access, only that budget.
public struct SignInDevices: Sendable {
    /// How long after its last sign-in a device stays known (and its cookie lives).
    public static let lifetime: Duration = .seconds(180 * 86_400)

    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    private var lifetimeSeconds: Int64 { Self.lifetime.components.seconds }

    /// Whether the device with this token hash signed in to the account with this address
    /// (case-insensitive) during the last `lifetime`.
    public func isKnown(tokenHash: String, email: String) throws -> Bool {
        let rows = try pool.query("""
            SELECT 1 AS known FROM sign_in_devices d JOIN users u ON u.id = d.user_id
            WHERE d.token_hash = \(tokenHash) AND lower(u.email) = lower(\(email))
              AND d.last_sign_in_at > now() - make_interval(secs => \(lifetimeSeconds))
            """)
        return !rows.isEmpty
    }

    /// Records a successful sign-in of the account on the device (a new one, or one it knew),
    /// and now and then forgets devices whose last sign-in left the lifetime.
    public func remember(tokenHash: String, userID: UUID) throws {
        try pool.execute("""
            INSERT INTO sign_in_devices (token_hash, user_id) VALUES (\(tokenHash), \(userID))
            ON CONFLICT (token_hash, user_id) DO UPDATE SET last_sign_in_at = now()
            """)
        if Int.random(in: 0..<100) == 0 {
            try pool.execute("DELETE FROM sign_in_devices WHERE last_sign_in_at < now() - make_interval(secs => \(lifetimeSeconds))")
        }
    }
}
