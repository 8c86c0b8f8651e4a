import Domain
import Foundation
import RouteKit
import Store

/// The server's own account pages (`/account/verify`): where a mail's link lands when no app
/// redirect is configured, for people who open it on a computer. Opening the page spends
/// nothing; the link is spent by the page's POST, here.
extension AuthService {
    /// What a link on an account page does, by the mail's `type`.
    package enum AccountLink: String, Sendable, CaseIterable {
        /// An invitation: choose a first password.
        case invite
        /// A forgotten password: choose a new one.
        case recovery
        /// A new address: confirm it.
        case emailChange = "email_change"

        package var choosesPassword: Bool { self != .emailChange }
    }

    /// Whether the page may offer `link`'s form: the token would still verify. Spends nothing.
    package func accountLinkIsUsable(_ link: AccountLink, token: String) throws -> Bool {
        guard let purposes = EmailTokenPurpose.accepted(byType: link.rawValue) else { return false }
        return try pool.withConnection { try emailTokens.linkIsUsable(token: token, purposes: purposes, on: $0) }
    }

    /// Completes `link` with the mail's token. For an invitation or a recovery, `password` is
    /// checked before the link is spent (a refused password leaves it usable), set as
    /// `resetPassword` sets it (other sessions end; a replaced password revokes API keys and
    /// mails a notice), and the session the link opened is ended at once: the person signs in
    /// on the app. For an address change, the account moves. The account as it is afterwards.
    package func completeAccountLink(_ link: AccountLink, token: String, password: String?, client: ClientInfo) throws -> User {
        if link.choosesPassword {
            guard let password else { throw DomainError.validation(field: "password", code: .required, message: "Choose a password.") }
            if let problem = UserRules.checkPassword(password) { throw DomainError.validation([problem]) }
        }
        guard let purposes = EmailTokenPurpose.accepted(byType: link.rawValue) else { throw DomainError.internalError }
        switch try verifyEmail(.link(token: token), purposes: purposes, forBrowser: false, client: client) {
        case .emailChanged(let user):
            return user
        case .session(let signedIn, _):
            defer { try? endSession(signedIn.sessionID, reason: .logout) }
            var asSession = client
            asSession.principal = Principal(userID: signedIn.user.id, sessionID: signedIn.sessionID, apiKeyID: nil)
            guard let password, try resetPassword(signedIn.user, to: password, client: asSession) else { throw Self.emailCodeInvalid }
            return signedIn.user
        case .pkceCode:
            throw DomainError.internalError
        }
    }
}
