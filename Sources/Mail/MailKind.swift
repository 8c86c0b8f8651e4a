/// The mails the server sends. The raw value names the templates
/// (`<kind>.subject.mustache`, `<kind>.txt.mustache`, `<kind>.html.mustache`) and is stored
/// in `mail_outbox.kind`.
public enum MailKind: String, CaseIterable, Sendable {
    /// Sign-in by e-mail: a one-time code and a magic link (GoTrue `/otp`, types email/magiclink).
    case magicLink = "magic_link"
    /// "Forgot password": a code and a link that open a recovery session.
    case recovery
    /// An administrator invited the recipient: a link (and code) to sign in and set a password.
    case invite
    /// Confirms a new address: sent to the *new* address, carries a code and a link.
    case emailChange = "email_change"
    /// Tells the *old* address that a change to another address was requested.
    case emailChangeNotice = "email_change_notice"
    /// Tells the account holder a recovery replaced their password (other sessions ended, API keys revoked).
    case passwordChanged = "password_changed"
    /// Tells an endpoint's creator the server disabled their webhook (a 410, or 5 days of failures).
    case webhookDisabled = "webhook_disabled"
    /// "Send a test mail" in the console: to the administrator who asked, through the outbox.
    case test
}
