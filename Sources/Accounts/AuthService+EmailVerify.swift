import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Mail
import Postgres
import Store

/// Verifying what a mail carried (a code typed by the user, or the link's token) and the
/// PKCE exchange that follows a link opened in a browser. A verification commits its outcome
/// (the token used, or one more wrong try) before any error is answered, so failures count.
extension AuthService {
    package enum EmailProof: Sendable {
        /// The 6-digit code, with the address it was sent to (or the account's current one).
        case code(email: String, code: String)
        /// The link's token (GoTrue's `token_hash`).
        case link(token: String)
    }

    /// What a verification came to.
    package enum EmailVerification {
        /// A new session; `purpose` says what the token was for.
        case session(SignedIn, purpose: EmailTokenPurpose)
        /// A PKCE link opened in a browser: the code the app exchanges with its verifier.
        case pkceCode(String, purpose: EmailTokenPurpose)
        /// A confirmed address change: the account moved; no session is opened, since the
        /// code proves only the new mailbox, not the account.
        case emailChanged(User)
    }

    package static let emailCodeInvalid = DomainError(.forbidden, .emailCodeInvalid, "The code or link is invalid, used or expired.")

    /// Verifies `proof` for one of `purposes`. `forBrowser`: the link was opened in a browser
    /// (GET /verify), so a PKCE token answers a code for the app instead of a session.
    package func verifyEmail(_ proof: EmailProof, purposes: [EmailTokenPurpose], forBrowser: Bool,
                     client: ClientInfo) throws -> EmailVerification {
        enum Outcome { case verified(EmailVerification), wrong, sourceLimited(Int) }
        // Wrong codes are counted per code, per source and per account (EmailCodeBudget), not
        // by the sign-in throttle: a guess never voids a code, and never blocks the owner's source.
        let outcome: Outcome = try pool.withTransaction { connection in
            let verified: EmailTokenStore.Verified?
            switch proof {
            case .code(let email, let code):
                switch try emailTokens.verifyCode(email: email, code: code, purposes: purposes, source: client.address,
                                                  on: connection) {
                case .verified(let found): verified = found
                case .wrong: return .wrong
                case .sourceLimited(let wait): return .sourceLimited(wait)
                }
            case .link(let token):
                verified = try emailTokens.verifyLink(token: token, purposes: purposes, on: connection)
            }
            guard let verified else { return .wrong }
            return .verified(try complete(verified, forBrowser: forBrowser, client, on: connection))
        }
        switch outcome {
        case .verified(let verification): return verification
        case .sourceLimited(let wait): throw AuthService.rateLimited(wait, "Too many wrong codes.")
        case .wrong:
            if case .code = proof { recordLoginFailure() }
            throw Self.emailCodeInvalid
        }
    }

    /// What a verified token does: an address change moves the account and ends there; any
    /// other opens a session, or answers a PKCE code when a browser opened a PKCE link.
    private func complete(_ verified: EmailTokenStore.Verified, forBrowser: Bool, _ client: ClientInfo,
                          on connection: PostgresConnection) throws -> EmailVerification {
        if verified.purpose == .emailChange {
            guard let user = try UserStore.changeEmail(userID: verified.userID, to: verified.email, on: connection),
                  user.isActive else { throw Self.emailCodeInvalid }
            return .emailChanged(user)
        }
        guard let user = try UserStore.find(id: verified.userID, on: connection), user.isActive else { throw Self.emailCodeInvalid }
        if forBrowser, let challenge = verified.challenge {
            return .pkceCode(try emailTokens.issuePKCECode(for: verified, challenge: challenge, on: connection),
                             purpose: verified.purpose)
        }
        let signedIn = try openSession(user, client, passwordResetFor: resetWindow(verified.purpose), on: connection)
        return .session(signedIn, purpose: verified.purpose)
    }

    /// `POST /token?grant_type=pkce`: the code from a PKCE link and the app's verifier.
    package func exchangePKCE(code: String, verifier: String, client: ClientInfo) throws -> SignedIn {
        enum Outcome { case signedIn(SignedIn), failed(DomainError) }
        // The code is spent even when the verifier is wrong: commit, then answer the error.
        let outcome: Outcome = try pool.withTransaction { connection in
            switch try emailTokens.exchangePKCECode(code, verifier: verifier, on: connection) {
            case .notFound:
                return .failed(DomainError(.notFound, .authCodeInvalid, "The authorization code is invalid, used or expired."))
            case .badVerifier:
                return .failed(DomainError(.badRequest, .codeVerifierMismatch, "The code verifier does not match the code challenge."))
            case .verified(let userID, let purpose):
                guard let user = try UserStore.find(id: userID, on: connection), user.isActive else {
                    return .failed(DomainError(.notFound, .authCodeInvalid, "The authorization code is invalid, used or expired."))
                }
                return .signedIn(try openSession(user, client, passwordResetFor: resetWindow(purpose), on: connection))
            }
        }
        switch outcome {
        case .signedIn(let signedIn): return signedIn
        case .failed(let error): throw error
        }
    }

    /// How long a session from a recovery or invitation may set a password without the
    /// current one: as long as the mail's code would have worked.
    private func resetWindow(_ purpose: EmailTokenPurpose) -> Duration? {
        purpose.grantsPasswordReset ? emailSettings.tokenLifetime : nil
    }

    /// Sets a new password without `current_password`, once, for a session opened by a
    /// recovery or invitation. Ends every other session of the user (which voids pending
    /// address changes and recoveries); when an existing password was replaced (a completed
    /// recovery), revokes the account's API keys and mails the account holder a notice saying
    /// so, in the same transaction. False when the session has no such right (the caller then asks for
    /// `current_password`). Runs on the KDF pool.
    package func resetPassword(_ user: User, to password: String, client: ClientInfo) throws -> Bool {
        guard let sessionID = try Self.principal(client).sessionID, try sessions.mayResetPassword(sessionID: sessionID) else {
            return false
        }
        let hash = try hasher.hash(password)
        let revoked: [UUID]? = try pool.withTransaction { connection in
            guard try SessionStore.spendPasswordReset(sessionID: sessionID, on: connection) else { return nil }
            let replacing = try UserStore.hasPassword(userID: user.id, on: connection)
            try UserStore.setPasswordHash(userID: user.id, hash: hash, on: connection)
            let revoked = try SessionStore.revokeAll(userID: user.id, except: sessionID, reason: .passwordChanged, on: connection)
            if replacing {
                // A completed recovery: whoever held the account may have made keys; the notice says they are gone.
                try APIKeyStore.revokeAll(userID: user.id, on: connection)
                try emailSettings.outbox.enqueue(.passwordChanged, to: try MailAddress(user.email, name: user.name), on: connection)
            }
            return revoked
        }
        guard let revoked else { return false }
        sessionsEnded(revoked)
        return true
    }
}
