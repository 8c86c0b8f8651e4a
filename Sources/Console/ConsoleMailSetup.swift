import Mail

/// Outgoing mail as the server runs it, for the console's Mail page: the outbox a test mail
/// goes through and the relay settings in force. The SMTP password is held by the transport
/// only; nothing here carries it.
package struct ConsoleMailSetup: Sendable {
    package var outbox: MailOutbox
    /// nil: no SMTP_HOST, mail is written to files in `fileDirectory`.
    package var host: String?
    package var port: Int?
    package var tls: String?
    /// Whether SMTP_USER is set (the name is shown, the password never).
    package var username: String?
    package var fileDirectory: String?
    package var maxAttempts: Int

    package init(outbox: MailOutbox, smtp: SMTPSettings?, fileDirectory: String?, maxAttempts: Int) {
        self.outbox = outbox
        host = smtp?.host
        port = smtp?.port
        tls = smtp?.tls.rawValue
        username = smtp?.username
        self.fileDirectory = smtp == nil ? fileDirectory : nil
        self.maxAttempts = maxAttempts
    }
}
