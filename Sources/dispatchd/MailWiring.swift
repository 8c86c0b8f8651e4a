import API
import Console
import Credentials
import Foundation
import Logging
import Mail
import Postgres

/// Outgoing mail for `serve`: the outbox request handlers write to, and this instance's
/// sender thread delivering it (SMTP, or files under DATA_DIR/mail without SMTP_HOST).
struct MailWiring {
    let links: PublicLinks
    let outbox: MailOutbox
    let sender: MailSender
    /// What the console's Mail page shows of it (never the SMTP password).
    let console: ConsoleMailSetup

    /// Parses the templates (a broken override stops the start) and builds the transport.
    /// The sender is not started yet.
    /// Queued messages are sealed under a key derived from `serverSecret` (JWT_SECRET).
    static func make(configuration: Configuration, pool: PostgresPool, serverSecret: String, logger: Logger) throws -> MailWiring {
        let settings = configuration.mail
        let links = PublicLinks(baseURL: settings.publicURL, redirectURLs: settings.authRedirectURLs)
        let templates: MailTemplates
        do {
            templates = try MailTemplates(siteName: settings.siteName, links: links, overridesDirectory: settings.templatesDirectory)
        } catch {
            throw ConfigurationError(error.description)
        }
        let transport: any MailTransport
        if let smtp = settings.smtp {
            transport = SMTPTransport(settings: smtp)
            logger.info("mail goes out through SMTP", metadata: ["smtp_host": .string(smtp.host), "smtp_port": .stringConvertible(smtp.port),
                                                                  "smtp_tls": .string(smtp.tls.rawValue)])
        } else {
            // An https PUBLIC_URL is a production address: there, mail that only goes to files
            // reaches nobody, so it must be a decision, not a forgotten SMTP_HOST.
            if settings.publicURLIsHTTPS, !settings.fileDeliveryDeliberate {
                throw ConfigurationError("""
                    PUBLIC_URL is https but SMTP_HOST is not set: mail would only be written to files under DATA_DIR/mail \
                    and nobody would receive a sign-in code or a password reset. Set SMTP_HOST (docs/operators/mail.md), \
                    or MAIL_FILE_DELIVERY=true if files are deliberate (a staging server)
                    """)
            }
            let directory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path + "/mail"
            do {
                transport = try FileMailTransport(directory: directory, logger: logger)
            } catch {
                throw ConfigurationError(error.description)
            }
            // Loud on purpose: a production instance without SMTP_HOST sends nobody anything.
            logger.warning("no SMTP_HOST: mail is not sent, only written to files", metadata: ["directory": .string(directory)])
        }
        var policy = MailSender.Policy()
        policy.maxAttempts = settings.maxAttempts
        policy.initialRetry = .milliseconds(Int64(settings.retryInitial * 1000))
        let seal = SecretSeal.mailOutbox(serverSecret: serverSecret)
        let sender = MailSender(queue: MailQueue(pool: pool, seal: seal), transport: transport, envelopeSender: settings.sender.email,
                                policy: policy, logger: logger)
        let outbox = MailOutbox(templates: templates, sender: settings.sender, seal: seal)
        let fileDirectory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path + "/mail"
        return MailWiring(links: links, outbox: outbox, sender: sender,
                          console: ConsoleMailSetup(outbox: outbox, smtp: settings.smtp, fileDirectory: fileDirectory,
                                                    maxAttempts: settings.maxAttempts))
    }
}
