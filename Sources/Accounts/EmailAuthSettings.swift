import Credentials
import Foundation
import Mail
import Store

/// The operator's choices for the e-mail flows (docs/operators/configuration.md).
package struct EmailAuthSettings: Sendable {
    /// AUTH_EMAIL_TOKEN_TTL: how long a code or link works (default 15 minutes).
    package var tokenLifetime: Duration
    /// AUTH_EMAIL_SIGNUP: whether `POST /auth/v1/otp` with `create_user: true` creates an
    /// account for an unknown address. Off by default: administrators create accounts.
    package var signupEnabled: Bool
    /// PUBLIC_URL and AUTH_REDIRECT_URLS: where mail links point and may send the browser.
    package var redirects: RedirectAllowList
    /// The server's own account pages (path on PUBLIC_URL, "/account/verify"): where an
    /// invitation, recovery or address-change link lands when its target is the server itself
    /// (no app redirect configured). nil: every link redirects as GoTrue's does.
    package var accountPagesPath: String?
    /// Where mails are queued, rendered from the operator's templates (the mail layer's).
    package var outbox: MailOutbox
    /// One mail per address per this interval, across instances (60 s: long enough to stop mail bombing, short enough for a retry).
    package var addressInterval: Duration
    /// AUTH_EMAIL_HOURLY_LIMIT: mails all instances queue in an hour before requests that
    /// would send one are refused (429, for unknown addresses too). A safety valve for the
    /// relay's reputation, not the defence against floods (the two caps below are):
    /// administrators' invitations pass it.
    package var hourlyLimit: Int
    /// AUTH_EMAIL_ADDRESS_HOURLY_LIMIT: requests per recipient address per hour.
    package var addressHourlyLimit: Int
    /// AUTH_EMAIL_SOURCE_HOURLY_LIMIT: unauthenticated requests per client address per hour.
    package var sourceHourlyLimit: Int

    package static let defaultAddressInterval: Duration = .seconds(60)
    package static let defaultHourlyLimit = 500
    package static let defaultAddressHourlyLimit = 5
    package static let defaultSourceHourlyLimit = 30

    package init(outbox: MailOutbox, redirects: RedirectAllowList, tokenLifetime: Duration = EmailTokenStore.defaultLifetime,
                signupEnabled: Bool = false, addressInterval: Duration = EmailAuthSettings.defaultAddressInterval,
                hourlyLimit: Int = EmailAuthSettings.defaultHourlyLimit,
                addressHourlyLimit: Int = EmailAuthSettings.defaultAddressHourlyLimit,
                sourceHourlyLimit: Int = EmailAuthSettings.defaultSourceHourlyLimit) {
        self.tokenLifetime = tokenLifetime
        self.signupEnabled = signupEnabled
        self.redirects = redirects
        self.outbox = outbox
        self.addressInterval = addressInterval
        self.hourlyLimit = hourlyLimit
        self.addressHourlyLimit = addressHourlyLimit
        self.sourceHourlyLimit = sourceHourlyLimit
    }

    /// Built-in templates, links to a local server: what an `AuthService` built without
    /// settings (tests of other features) uses. Queued mail is sealed under `serverSecret`.
    package static func standard(serverSecret: String) throws -> EmailAuthSettings {
        let links = PublicLinks(baseURL: "http://127.0.0.1:8080", redirectURLs: nil)
        return EmailAuthSettings(outbox: MailOutbox(templates: try MailTemplates(siteName: "Dispatch", links: links),
                                                    sender: try MailAddress("no-reply@localhost.localdomain", name: "Dispatch"),
                                                    seal: SecretSeal.mailOutbox(serverSecret: serverSecret)),
                                 redirects: RedirectAllowList(links: links))
    }

    /// Whole minutes a code works, for the mail's text (at least 1).
    package var validMinutes: Int { max(1, Int(tokenLifetime.components.seconds / 60)) }
}
