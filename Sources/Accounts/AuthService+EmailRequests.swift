import Credentials
import Domain
import Foundation
import Mail
import Postgres
import Store

/// The requests that send a code and link by e-mail: sign-in (`/otp`), recovery, resend,
/// invitation and address change. Each runs in one transaction: the per-address mail limit,
/// the account lookup, the token and its mail (`MailOutbox`) commit together or not at all.
///
/// Unknown and deactivated addresses get the same answer as known ones, and the same work
/// where it costs: the per-address interval and the hourly limit are checked for them too (so
/// a refusal reads the same), and a code, a link and their keyed hashes are made and dropped,
/// so timing does not tell accounts apart beyond the inserts that are skipped.
extension AuthService {
    /// A checked mail request: the address as typed (trimmed), an optional PKCE challenge and
    /// the allow-listed redirect target for the link.
    package struct EmailRequest: Sendable {
        package var email: String
        var challenge: EmailTokenStore.Challenge?
        var redirectTo: String
        /// The client address of an unauthenticated request, for the per-source mail cap
        /// (`checkHourlyMailCaps`); nil for a signed-in caller.
        var source: String?
    }

    /// GoTrue's `POST /otp`: a sign-in code and link. `createUser` creates an account for an
    /// unknown address only when the operator enabled sign-up (AUTH_EMAIL_SIGNUP).
    package func requestSignInCode(_ request: EmailRequest, createUser: Bool, name: String?) throws {
        try sendingMail(to: [request.email], source: request.source) { connection in
            if let found = try UserStore.findActive(email: request.email, on: connection) {
                try mailToken(.magicLink, user: found.user, to: request.email, request, on: connection)
            } else if createUser, emailSettings.signupEnabled {
                let user = try UserStore.createWithoutPassword(email: request.email, name: name ?? Self.defaultName(request.email),
                                                               userType: .realtor, on: connection)
                try mailToken(.magicLink, user: user, to: request.email, request, on: connection)
            } else {
                try spendLikeAToken(.magicLink, request, on: connection)
            }
        }
    }

    /// GoTrue's `POST /recover`: a code and link that open a session allowed to set a new password.
    package func requestRecovery(_ request: EmailRequest) throws {
        try sendingMail(to: [request.email], source: request.source) { connection in
            if let found = try UserStore.findActive(email: request.email, on: connection) {
                try mailToken(.recovery, user: found.user, to: request.email, request, on: connection)
            } else {
                try spendLikeAToken(.recovery, request, on: connection)
            }
        }
    }

    /// What `POST /resend` can send again: an invitation not yet taken up (GoTrue's `signup`
    /// type: our accounts are never self-registered, an invitation is their confirmation) or a
    /// pending address change (`email_change`, `email` being the current address).
    package enum ResendKind: String, Sendable {
        case invitation = "signup"
        case emailChange = "email_change"
    }

    package func resend(_ request: EmailRequest, kind: ResendKind) throws {
        try sendingMail(to: [request.email], source: request.source) { connection in
            let found = try UserStore.findActive(email: request.email, on: connection)
            switch (kind, found) {
            case (.invitation, let found?) where !found.hasPassword:
                try mailToken(.invite, user: found.user, to: request.email, request, on: connection)
            case (.emailChange, let found?):
                guard let newEmail = try EmailTokenStore.pendingEmailChange(userID: found.user.id, on: connection) else {
                    return try spendLikeAToken(.magicLink, request, on: connection)
                }
                try mailEmailChange(found.user, to: newEmail, request, on: connection)
            default:
                try spendLikeAToken(.magicLink, request, on: connection)
            }
        }
    }

    /// An administrator invites `email`: a new account without a password and a mail to sign
    /// in and set one. Inviting an address whose invitation is still open sends a new one;
    /// an account that already has a password answers `email_taken`.
    package func invite(_ request: EmailRequest, name: String?, userType: UserType) throws -> User {
        try sendingMail(to: [request.email], administrator: true) { connection in
            let user: User
            if let found = try UserStore.findActive(email: request.email, on: connection) {
                guard !found.hasPassword else { throw UserStore.emailTaken }
                user = found.user
            } else {
                user = try UserStore.createWithoutPassword(email: request.email, name: name ?? Self.defaultName(request.email),
                                                           userType: userType, on: connection)
            }
            try mailToken(.invite, user: user, to: request.email, request, on: connection)
            return user
        }
    }

    /// The console's invitation ("Add a person", e-mail): `invite` as `POST /v1/invitations`
    /// runs it, with the link to the default target (PUBLIC_URL) and no PKCE pair, since an
    /// administrator's browser is not the one that will open it. The address is checked as
    /// the API's body check does (`mailAddress`), so a bad one is a 422, not a mail error.
    package func invite(email: String, name: String?, userType: UserType) throws -> User {
        var problems: [FieldError] = []
        guard let checked = UserRules.checkEmail(email, errors: &problems), (try? MailAddress(checked)) != nil else {
            throw DomainError.validation(problems.isEmpty
                ? [FieldError(field: "email", code: .invalid, message: "Must be an email address like name@example.com.")] : problems)
        }
        return try invite(EmailRequest(email: checked, challenge: nil, redirectTo: emailSettings.redirects.resolve(nil)),
                          name: name, userType: userType)
    }

    /// Mails an address change whose caller proved presence (`requestEmailChange`): a code and
    /// link to the new address, a notice with a cancel link to the current one. Nothing changes
    /// until the new address is confirmed. An address of a deactivated account is hidden from
    /// the caller: answered and noticed as if the change were under way, with nothing sent to
    /// it and nothing stored; only an active account's address answers `email_taken` (active
    /// accounts are listed to every signed-in user anyway).
    package func queueEmailChange(_ user: User, _ request: EmailRequest) throws {
        try sendingMail(to: [request.email, user.email]) { connection in
            switch try UserStore.emailHolder(request.email, on: connection) {
            case .active?:
                throw UserStore.emailTaken
            case .deactivated?:
                try EmailTokenStore.voidPendingEmailChange(userID: user.id, on: connection)
                try spendLikeAToken(.emailChange, request, on: connection)
                try mailEmailChangeNotice(user, newEmail: request.email, cancelToken: try emailTokens.unstoredCancelToken(),
                                          on: connection)
            case nil:
                try mailEmailChange(user, to: request.email, request, on: connection)
            }
        }
    }

    /// The change's code and link to `newEmail`, and its notice with a cancel link to the
    /// account's current address (a resend sends both again, the old cancel link being void).
    private func mailEmailChange(_ user: User, to newEmail: String, _ request: EmailRequest,
                                 on connection: PostgresConnection) throws {
        try mailToken(.emailChange, user: user, to: newEmail, request, on: connection)
        try mailEmailChangeNotice(user, newEmail: newEmail, cancelToken: try emailTokens.attachCancelToken(userID: user.id, on: connection),
                                  on: connection)
    }

    /// Runs `work` after taking the per-address mail interval for every address (known to us
    /// or not) and the hourly caps (`checkHourlyMailCaps`); refused with 429 and `Retry-After`
    /// when one is reached.
    private func sendingMail<Result>(to addresses: [String], source: String? = nil, administrator: Bool = false,
                                     _ work: (PostgresConnection) throws -> Result) throws -> Result {
        try pool.withTransaction { connection in
            for address in addresses {
                // Throwing rolls back the intervals taken for the other addresses too.
                if let wait = try MailOutbox.reserveAddress(address, interval: emailSettings.addressInterval, on: connection) {
                    throw AuthService.mailRateLimited(Self.wholeSeconds(wait))
                }
            }
            try checkHourlyMailCaps(addresses: addresses, source: source, administrator: administrator, on: connection)
            return try work(connection)
        }
    }

    /// Issues a token of `purpose` for `user` and queues its mail to `address` in the same transaction.
    private func mailToken(_ purpose: EmailTokenPurpose, user: User, to address: String, _ request: EmailRequest,
                           on connection: PostgresConnection) throws {
        let issued = try emailTokens.issue(userID: user.id, purpose: purpose, email: address,
                                           challenge: request.challenge, on: connection)
        let link = emailSettings.redirects.verifyLink(token: issued.linkToken, type: purpose.rawValue,
                                                      redirectTo: request.redirectTo)
        let minutes = emailSettings.validMinutes
        let content: MailContent = switch purpose {
        case .magicLink: .magicLink(code: issued.code, link: link, validMinutes: minutes)
        case .recovery: .recovery(code: issued.code, link: link, validMinutes: minutes)
        case .invite: .invite(code: issued.code, link: link, validMinutes: minutes)
        case .emailChange: .emailChange(code: issued.code, link: link, newEmail: address, validMinutes: minutes)
        }
        try emailSettings.outbox.enqueue(content, to: try MailAddress(address, name: user.name), on: connection)
    }

    /// The work of `mailToken` for an address that gets no mail (unknown, deactivated, or
    /// nothing to resend): the token's statements touch no row, the mail is rendered and
    /// dropped. So both answers cost about the same; only the two inserts' writes are skipped.
    private func spendLikeAToken(_ purpose: EmailTokenPurpose, _ request: EmailRequest, on connection: PostgresConnection) throws {
        let issued = try emailTokens.dryIssue(purpose: purpose, on: connection)
        let link = emailSettings.redirects.verifyLink(token: issued.linkToken, type: purpose.rawValue, redirectTo: request.redirectTo)
        let recipient = try MailAddress(request.email)
        let content = MailContent.magicLink(code: issued.code, link: link, validMinutes: emailSettings.validMinutes)
        _ = try MailMessage(from: emailSettings.outbox.sender, to: recipient,
                            rendered: emailSettings.outbox.templates.render(content, to: recipient))
    }

    /// The name of an account created from an address alone: its local part.
    package static func defaultName(_ email: String) -> String {
        String(email.prefix { $0 != "@" }.prefix(UserRules.nameMaximumLength))
    }
}
