import Domain
import Foundation
import HTTPServer
import Mail
import Postgres
import RouteKit
import Store

/// Who may start an address change, and how the old address stops one. Moving the account's
/// address moves sign-in, recovery and every notice with it, so it is the one change a leaked
/// credential must not be able to make:
/// - API keys are refused (403): a key is an integration's credential, not the person;
/// - the session must prove presence: the current password in the request, or a password
///   sign-in within `reauthenticationWindow` (what a supabase-swift app, whose `updateUser`
///   cannot send `current_password`, does right before). A stolen access token or a session
///   opened by a mailed code proves neither;
/// - the old address gets a notice with a cancel link that voids the change while it is pending.
extension AuthService {
    /// How the caller proved presence for an address change.
    package enum EmailChangePresence: Sendable {
        /// `current_password` as sent ("" when absent: then a recent password sign-in must do).
        case currentPassword(String)
        /// The same request already checked the password (a password change with
        /// `current_password`, or a reset allowed to this session).
        case provenInThisRequest
    }

    /// How recent a password sign-in stands in for `current_password`.
    package static let reauthenticationWindow: Duration = .seconds(5 * 60)

    package static let apiKeyMayNotChangeEmail = "An API key cannot change the account's e-mail address; a signed-in session with the password can."

    package static let emailChangeNeedsPassword = DomainError.validation([FieldError(
        field: "current_password", code: .required,
        message: "Changing the e-mail address needs the current password (or a password sign-in within the last 5 minutes).")])

    /// Starts an address change for the caller after the checks above; runs the KDF, so callers
    /// run it on `passwordWork`. Wrong passwords count toward the sign-in throttle.
    package func requestEmailChange(_ user: User, _ request: EmailRequest, presence: EmailChangePresence,
                            client: ClientInfo) throws {
        guard let sessionID = try Self.principal(client).sessionID else {
            throw Self.sessionRequired(Self.apiKeyMayNotChangeEmail)
        }
        switch presence {
        case .provenInThisRequest:
            break
        case .currentPassword(let current) where !current.isEmpty:
            try verifyCurrentPassword(user, current, client: client)
        case .currentPassword:
            guard try sessions.passwordVerified(sessionID: sessionID, within: Self.reauthenticationWindow) else {
                throw Self.emailChangeNeedsPassword
            }
        }
        try queueEmailChange(user, request)
    }

    /// The notice to the current address, with the link that cancels the change.
    package func mailEmailChangeNotice(_ user: User, newEmail: String, cancelToken: String, on connection: PostgresConnection) throws {
        let link = emailSettings.redirects.publicURL + EmailChangeCancelPage.path + "?" + FormEncoding.encode([("token", cancelToken)])
        try emailSettings.outbox.enqueue(.emailChangeNotice(newEmail: newEmail, cancelLink: link),
                                         to: try MailAddress(user.email, name: user.name), on: connection)
    }

    /// Voids the pending change the cancel token belongs to; false when none is pending (used,
    /// confirmed, expired, replaced or never stored).
    package func cancelEmailChange(token: String) throws -> Bool {
        try pool.withTransaction { try emailTokens.cancelEmailChange(token: token, on: $0) }
    }
}
