import Foundation

/// Who is calling: set on `RequestContext.principal` by `AuthMiddleware`. Carries ids only —
/// access tokens are verified without the database, so the user row is loaded by the handlers
/// that need it (`AuthService.currentUser`).
package struct Principal: Sendable, Equatable {
    package var userID: UUID
    /// The sign-in session of an access token; nil for API keys.
    package var sessionID: UUID?
    /// The API key used; nil for access tokens.
    package var apiKeyID: UUID?

    package init(userID: UUID, sessionID: UUID?, apiKeyID: UUID?) {
        self.userID = userID
        self.sessionID = sessionID
        self.apiKeyID = apiKeyID
    }
}
