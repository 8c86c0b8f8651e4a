/// Every failure of the mail layer, with a message for the operator's log or start-up error.
public enum MailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An address that cannot be put in a header or an SMTP envelope (CR/LF, control
    /// characters, angle brackets, no domain, not ASCII): refused, never sent.
    case invalidAddress(String)
    /// A template that does not parse (operator override or built-in).
    case invalidTemplate(file: String, reason: String)
    /// MAIL_TEMPLATES_DIR or a file in it cannot be read.
    case unreadableTemplates(String)
    /// SMTP_* settings that cannot work together.
    case invalidSettings(String)
    /// libcurl could not be initialised (out of memory).
    case transportUnavailable(String)

    public var description: String {
        switch self {
        case .invalidAddress(let reason): "invalid mail address: \(reason)"
        case .invalidTemplate(let file, let reason): "mail template \(file) does not parse: \(reason)"
        case .unreadableTemplates(let reason): "cannot read mail templates: \(reason)"
        case .invalidSettings(let reason): reason
        case .transportUnavailable(let reason): "cannot send mail: \(reason)"
        }
    }
}
