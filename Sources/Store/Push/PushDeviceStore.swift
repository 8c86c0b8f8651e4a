import Domain
import Foundation
import Postgres

/// `push_devices`: registration by a signed-in session, the owner's listing and removal, and
/// the sender's verdicts (a token the provider no longer knows is removed).
public struct PushDeviceStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    static let columns = """
        id, user_id, session_id, platform, token, app_id, created_at, registered_at, last_push_at, last_failure_at, last_failure
        """

    static func decode(_ row: PostgresRow) throws -> PushDevice {
        let platform: String = try row.decode("platform")
        guard let known = PushDevice.Platform(rawValue: platform) else {
            throw UnknownStoredValue(column: "push_devices.platform", value: platform)
        }
        return PushDevice(id: try row.decode("id"), userID: try row.decode("user_id"), sessionID: try row.decode("session_id"),
                          platform: known, token: try row.decode("token"), appID: try row.decode("app_id"),
                          createdAt: try row.decode("created_at"), registeredAt: try row.decode("registered_at"),
                          lastPushAt: try row.decode("last_push_at"), lastFailureAt: try row.decode("last_failure_at"),
                          lastFailure: try row.decode("last_failure"))
    }

    /// Idempotent on the token: registering it again (by anyone) moves the row to this user
    /// and session and renews `registered_at`; the id stays, so a re-registration is the same
    /// device. A token that changes hands sheds the wake-up still owed to its previous owner.
    public func register(user: UUID, session: UUID, platform: PushDevice.Platform, token: String, appID: String) throws -> PushDevice {
        try pool.withTransaction { connection in
            // `previous` reads the row as it was before this statement: the owner it leaves.
            let rows = try connection.query("""
                WITH previous AS (SELECT user_id FROM push_devices WHERE token = \(token))
                INSERT INTO push_devices (user_id, session_id, platform, token, app_id)
                VALUES (\(user), \(session), \(platform.rawValue), \(token), \(appID))
                ON CONFLICT (token) DO UPDATE SET user_id = EXCLUDED.user_id, session_id = EXCLUDED.session_id,
                       platform = EXCLUDED.platform, app_id = EXCLUDED.app_id, registered_at = now(),
                       last_failure_at = NULL, last_failure = NULL
                RETURNING \(unsafeSQL: Self.columns),
                          coalesce((SELECT p.user_id <> \(user) FROM previous p), false) AS moved
                """)
            guard let row = rows.first else { throw DomainError.internalError }
            let device = try Self.decode(row)
            if try row.decode("moved", as: Bool.self) {
                try connection.execute("""
                    DELETE FROM push_outbox WHERE device_id = \(device.id) AND sent_at IS NULL AND dead_at IS NULL AND claim IS NULL
                    """)
            }
            return device
        }
    }

    public func list(user: UUID) throws -> [PushDevice] {
        try pool.query("""
            SELECT \(unsafeSQL: Self.columns) FROM push_devices WHERE user_id = \(user) ORDER BY created_at, id
            """).map(Self.decode)
    }

    public func find(id: UUID) throws -> PushDevice? {
        try pool.query("SELECT \(unsafeSQL: Self.columns) FROM push_devices WHERE id = \(id)").first.map(Self.decode)
    }

    /// Removes one of `user`'s devices; false when they have none with that id.
    public func delete(user: UUID, id: UUID) throws -> Bool {
        try pool.execute("DELETE FROM push_devices WHERE id = \(id) AND user_id = \(user)") == 1
    }

    /// The provider says the token is dead as of `invalidSince` (APNs' timestamp; nil: now).
    /// A device registered after that moment stays: the phone registered the token again.
    public func removeDead(id: UUID, token: String, invalidSince: Date?) throws -> Bool {
        try pool.execute("""
            DELETE FROM push_devices WHERE id = \(id) AND token = \(token)
              AND (\(invalidSince)::timestamptz IS NULL OR registered_at <= \(invalidSince))
            """) == 1
    }

    /// Every device of `user` (off-boarding).
    @discardableResult
    public func removeAll(user: UUID, on connection: PostgresConnection) throws -> Int {
        try connection.execute("DELETE FROM push_devices WHERE user_id = \(user)")
    }
}
