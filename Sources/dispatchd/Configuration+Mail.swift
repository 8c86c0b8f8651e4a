import Foundation
import Mail

extension Configuration {
    /// Outgoing mail (SMTP_*, MAIL_*) and the links in it (PUBLIC_URL, AUTH_REDIRECT_URLS);
    /// docs/operators/mail.md.
    struct MailSettings: Sendable {
        /// nil: no SMTP_HOST, the development file mailer (`FileMailTransport`).
        var smtp: SMTPSettings?
        /// SMTP_SENDER: From and envelope sender.
        var sender: MailAddress
        /// MAIL_SITE_NAME (default "Dispatch"): `site_name` in templates.
        var siteName: String
        /// MAIL_TEMPLATES_DIR: operator overrides of the built-in templates.
        var templatesDirectory: String?
        /// MAIL_MAX_ATTEMPTS (default 10): attempts before a mail is dead.
        var maxAttempts: Int
        /// MAIL_RETRY_INITIAL (seconds, default 30): the first retry's delay, doubled per attempt.
        var retryInitial: Double
        /// PUBLIC_URL; nil: the listener's URL.
        var publicURL: String?
        /// AUTH_REDIRECT_URLS; nil: PUBLIC_URL only.
        var authRedirectURLs: [String]?
        /// MAIL_FILE_DELIVERY (default false): without SMTP_HOST, files are deliberate even
        /// though PUBLIC_URL is https (`MailWiring` refuses that combination otherwise).
        var fileDeliveryDeliberate = false

        /// PUBLIC_URL is https: a production address, where nobody reads DATA_DIR/mail.
        var publicURLIsHTTPS: Bool { publicURL?.lowercased().hasPrefix("https://") ?? false }

        static let developmentSender = "Dispatch <no-reply@localhost>"

        static func load(_ reader: EnvironmentReader) throws(ConfigurationError) -> MailSettings {
            let host = reader.string(.smtpHost)
            if host == nil, let stray = [Setting.smtpPort, .smtpUser, .smtpPass, .smtpTLS, .smtpCAFile].first(where: { reader.string($0) != nil }) {
                throw ConfigurationError("\(stray.name) is set but SMTP_HOST is not: set SMTP_HOST to send mail (without it, mail is only written to DATA_DIR/mail)")
            }
            var smtp: SMTPSettings?
            if let host {
                guard reader.string(.smtpSender) != nil else {
                    throw ConfigurationError("SMTP_SENDER is required with SMTP_HOST (an address the relay may send from, e.g. \"Dispatch <no-reply@example.com>\")")
                }
                let tlsName = reader.string(.smtpTLS) ?? "starttls"
                guard let tls = SMTPSettings.TLSMode(rawValue: tlsName.lowercased()) else {
                    throw ConfigurationError("SMTP_TLS must be starttls, implicit or none (got \"\(tlsName)\")")
                }
                let port = try reader.optionalInteger(.smtpPort, in: 1...65535)
                do throws(MailError) {
                    smtp = try SMTPSettings(host: host, port: port, username: reader.string(.smtpUser),
                                            password: reader.string(.smtpPass), tls: tls, caFile: reader.string(.smtpCAFile))
                } catch {
                    throw ConfigurationError(error.description)
                }
            }
            let senderText = reader.string(.smtpSender) ?? developmentSender
            let sender: MailAddress
            do {
                sender = try MailAddress(parsing: senderText)
            } catch {
                throw ConfigurationError("SMTP_SENDER must be an address or \"Name <address>\" (got \"\(senderText)\"): \(error.description)")
            }
            let publicURL = try reader.string(.publicURL).map { text throws(ConfigurationError) in try publicBase(text) }
            let redirects = try reader.string(.authRedirectURLs).map { text throws(ConfigurationError) in try redirectList(text) }
            let fileDelivery: Bool
            switch reader.string(.mailFileDelivery)?.lowercased() {
            case nil, "false": fileDelivery = false
            case "true": fileDelivery = true
            case let other?: throw ConfigurationError("MAIL_FILE_DELIVERY must be true or false (got \"\(other)\")")
            }
            if fileDelivery, host != nil {
                throw ConfigurationError("MAIL_FILE_DELIVERY=true and SMTP_HOST are both set: mail goes to one place; unset one")
            }
            return MailSettings(
                smtp: smtp, sender: sender, siteName: reader.string(.mailSiteName) ?? "Dispatch",
                templatesDirectory: reader.string(.mailTemplatesDirectory),
                maxAttempts: try reader.integer(.mailMaxAttempts, default: 10, in: 1...100),
                retryInitial: try reader.seconds(.mailRetryInitial, default: 30),
                publicURL: publicURL, authRedirectURLs: redirects, fileDeliveryDeliberate: fileDelivery)
        }

        /// An http(s) URL with a host and neither query nor fragment; stored without a trailing slash.
        static func publicBase(_ text: String) throws(ConfigurationError) -> String {
            guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
                  components.query == nil, components.fragment == nil, components.user == nil
            else {
                throw ConfigurationError("PUBLIC_URL must be the http(s) URL clients reach the server at, e.g. https://dispatch.example.com (got \"\(text)\")")
            }
            return text.hasSuffix("/") ? String(text.dropLast()) : text
        }

        /// Comma-separated absolute URLs (an app's own scheme, such as com.example.app://callback, included).
        static func redirectList(_ text: String) throws(ConfigurationError) -> [String] {
            let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for entry in entries {
                guard let components = URLComponents(string: entry), let scheme = components.scheme, !scheme.isEmpty,
                      !entry.contains(where: { $0.isWhitespace })
                else {
                    throw ConfigurationError("AUTH_REDIRECT_URLS must be a comma-separated list of absolute URLs (got \"\(entry)\")")
                }
            }
            guard !entries.isEmpty else { throw ConfigurationError("AUTH_REDIRECT_URLS is set but lists no URL") }
            return entries
        }
    }
}
