import API
import Accounts
import Console
import Foundation
import Mail

/// The settings of the e-mail sign-in flows (docs/operators/configuration.md). The
/// mail itself (SMTP_*, PUBLIC_URL, AUTH_REDIRECT_URLS) is `Configuration.mail`'s.
extension Configuration {
    struct EmailAuthOptions: Sendable {
        /// AUTH_EMAIL_TOKEN_TTL (seconds, default 900): how long a mailed code or link works.
        var tokenLifetime: Double
        /// AUTH_EMAIL_SIGNUP (default false): `/otp` with `create_user` creates accounts.
        var signupEnabled: Bool
        /// AUTH_EMAIL_HOURLY_LIMIT (default 500, at least 100): mails per hour, all instances.
        var hourlyLimit: Int
        /// AUTH_EMAIL_ADDRESS_HOURLY_LIMIT (default 5): mail requests per recipient per hour.
        var addressHourlyLimit: Int
        /// AUTH_EMAIL_SOURCE_HOURLY_LIMIT (default 30): unauthenticated mail requests per client
        /// address per hour.
        var sourceHourlyLimit: Int

        static func load(_ reader: EnvironmentReader) throws(ConfigurationError) -> EmailAuthOptions {
            let signup = reader.string(.authEmailSignup)?.lowercased()
            guard signup == nil || ["true", "false", "1", "0"].contains(signup ?? "") else {
                throw ConfigurationError("AUTH_EMAIL_SIGNUP must be true or false (got \"\(signup ?? "")\")")
            }
            let lifetime = try reader.seconds(.authEmailTokenTTL, default: 900)
            guard (1...86_400).contains(lifetime) else {
                throw ConfigurationError("AUTH_EMAIL_TOKEN_TTL must be between 1 and 86400 seconds (got \(lifetime))")
            }
            return EmailAuthOptions(
                tokenLifetime: lifetime, signupEnabled: signup == "true" || signup == "1",
                hourlyLimit: try reader.integer(.authEmailHourlyLimit, default: EmailAuthSettings.defaultHourlyLimit,
                                                in: 100...10_000_000),
                addressHourlyLimit: try reader.integer(.authEmailAddressHourlyLimit, default: EmailAuthSettings.defaultAddressHourlyLimit,
                                                       in: 1...1000),
                sourceHourlyLimit: try reader.integer(.authEmailSourceHourlyLimit, default: EmailAuthSettings.defaultSourceHourlyLimit,
                                                      in: 1...10_000_000)
            )
        }
    }

    /// The service's settings, on the mail layer's outbox and links.
    /// The console (always served) provides the account pages links land on.
    func emailAuthSettings(outbox: MailOutbox, links: PublicLinks) -> EmailAuthSettings {
        var settings = EmailAuthSettings(outbox: outbox, redirects: RedirectAllowList(links: links),
                                         tokenLifetime: .milliseconds(Int64(emailAuth.tokenLifetime * 1000)),
                                         signupEnabled: emailAuth.signupEnabled, hourlyLimit: emailAuth.hourlyLimit,
                                         addressHourlyLimit: emailAuth.addressHourlyLimit, sourceHourlyLimit: emailAuth.sourceHourlyLimit)
        settings.accountPagesPath = ConsoleAccountPages.path
        return settings
    }
}
