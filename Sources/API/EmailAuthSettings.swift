import Foundation
import Mail
import Store

/// The operator's choices for the e-mail flows (docs/operators/configuration.md).
public struct EmailAuthSettings: Sendable {
    /// AUTH_EMAIL_TOKEN_TTL: how long a code or link works (default 15 minutes).
    public var tokenLifetime: Duration
    /// AUTH_EMAIL_SIGNUP: whether `POST /auth/v1/otp` with `create_user: true` creates an
    /// account for an unknown address. Off by default: administrators create accounts.
    public var signupEnabled: Bool
    /// PUBLIC_URL and AUTH_REDIRECT_URLS: where mail links point and may send the browser.
    public var redirects: RedirectAllowList
    /// Where mails are queued, rendered from the operator's templates (the mail layer's).
    public var outbox: MailOutbox
    /// One mail per address per this interval, across instances (issue 25: 60 s).
    public var addressInterval: Duration
    /// AUTH_EMAIL_HOURLY_LIMIT: mails all instances queue in an hour before requests that
    /// would send one are refused (429, for unknown addresses too). Bounds what a flood of
    /// requests for many addresses can make the relay send (and cost its reputation).
    public var hourlyLimit: Int

    public static let defaultAddressInterval: Duration = .seconds(60)
    public static let defaultHourlyLimit = 500

    public init(outbox: MailOutbox, redirects: RedirectAllowList, tokenLifetime: Duration = EmailTokenStore.defaultLifetime,
                signupEnabled: Bool = false, addressInterval: Duration = EmailAuthSettings.defaultAddressInterval,
                hourlyLimit: Int = EmailAuthSettings.defaultHourlyLimit) {
        self.tokenLifetime = tokenLifetime
        self.signupEnabled = signupEnabled
        self.redirects = redirects
        self.outbox = outbox
        self.addressInterval = addressInterval
        self.hourlyLimit = hourlyLimit
    }

    /// Built-in templates, links to a local server: what an `AuthService` built without
    /// settings (tests of other features) uses.
    public static func standard() throws -> EmailAuthSettings {
        let links = PublicLinks(baseURL: "http://127.0.0.1:8080", redirectURLs: nil)
        return EmailAuthSettings(outbox: MailOutbox(templates: try MailTemplates(siteName: "Dispatch", links: links),
                                                    sender: try MailAddress("no-reply@localhost.localdomain", name: "Dispatch")),
                                 redirects: RedirectAllowList(links: links))
    }

    /// Whole minutes a code works, for the mail's text (at least 1).
    var validMinutes: Int { max(1, Int(tokenLifetime.components.seconds / 60)) }
}
