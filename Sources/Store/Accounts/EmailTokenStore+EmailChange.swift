import Credentials
import Foundation
import Postgres

/// What the old address can do about an address change, and what ends one early. The cancel
/// token is mailed to the old address with the change's notice; like every other secret here it
/// is stored only as a keyed hash (`cancel_hash`, migration 0029) on the change's own row, so it
/// works exactly as long as the change is pending: confirming, replacing, expiring or voiding
/// the row ends both.
extension EmailTokenStore {
    /// Attaches a new cancel token to the user's pending address change (the row `issue` just
    /// made) and returns it for the notice.
    public func attachCancelToken(userID: UUID, on connection: PostgresConnection) throws -> String {
        let token = try SecureRandom.token()
        try connection.execute("""
            UPDATE auth_email_tokens SET cancel_hash = \(cancelHash(token))
            WHERE user_id = \(userID) AND purpose = \(EmailTokenPurpose.emailChange.rawValue) AND used_at IS NULL
            """)
        return token
    }

    /// A cancel token for a notice whose change was never stored (the new address belongs to a
    /// hidden account): made like a real one, so the notice reads the same, and never stored.
    public func unstoredCancelToken() throws -> String {
        try SecureRandom.token()
    }

    /// Voids the pending address change whose cancel token is `token`. True when one was
    /// pending; the caller answers the same either way, so the link tells nothing.
    public func cancelEmailChange(token: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query("""
            UPDATE auth_email_tokens SET used_at = now()
            WHERE cancel_hash = \(cancelHash(token)) AND purpose = \(EmailTokenPurpose.emailChange.rawValue)
              AND used_at IS NULL AND expires_at > now()
            RETURNING id
            """).first != nil
    }

    /// Voids the user's pending address change, as a new request's `issue` would: a request
    /// for a hidden account's address must end the previous change too, or trying the previous
    /// code would tell a hidden address from a free one.
    public static func voidPendingEmailChange(userID: UUID, on connection: PostgresConnection) throws {
        try connection.execute("""
            UPDATE auth_email_tokens SET used_at = now()
            WHERE user_id = \(userID) AND purpose = \(EmailTokenPurpose.emailChange.rawValue) AND used_at IS NULL
            """)
    }

    /// Voids every pending address change and recovery of the user: a new password, a reset or
    /// the end of all sessions means whoever asked for them with the old credentials is out.
    public static func voidPendingChangeAndRecovery(userID: UUID, on connection: PostgresConnection) throws {
        try connection.execute("""
            UPDATE auth_email_tokens SET used_at = now()
            WHERE user_id = \(userID) AND used_at IS NULL
              AND purpose = ANY(\([EmailTokenPurpose.emailChange.rawValue, EmailTokenPurpose.recovery.rawValue]))
            """)
    }

    func cancelHash(_ token: String) -> String {
        HMACSHA256.hex(key: keys.key, "cancel:\(token)")
    }
}
