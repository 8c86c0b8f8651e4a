/// What one mail says: its kind and the values only that kind has. The values every mail has
/// (site name, PUBLIC_URL, the recipient) come from `MailTemplates` and the recipient.
///
/// Template variables (docs/operators/mail.md): `site_name`, `site_url`, `email` (the
/// recipient), and per kind `code`, `link`, `valid_minutes`, `new_email`, `cancel_link`, `url`, `reason`.
public enum MailContent: Sendable, Equatable {
    case magicLink(code: String, link: String, validMinutes: Int)
    case recovery(code: String, link: String, validMinutes: Int)
    case invite(code: String, link: String, validMinutes: Int)
    /// To the new address; `newEmail` is that address.
    case emailChange(code: String, link: String, newEmail: String, validMinutes: Int)
    /// To the old address; `cancelLink` voids the change while it is pending.
    case emailChangeNotice(newEmail: String, cancelLink: String)
    case passwordChanged
    /// `url` is the endpoint's, `reason` why the server disabled it.
    case webhookDisabled(url: String, reason: String)
    /// The console's test mail: proves the relay settings end to end.
    case test

    public var kind: MailKind {
        switch self {
        case .magicLink: .magicLink
        case .recovery: .recovery
        case .invite: .invite
        case .emailChange: .emailChange
        case .emailChangeNotice: .emailChangeNotice
        case .passwordChanged: .passwordChanged
        case .webhookDisabled: .webhookDisabled
        case .test: .test
        }
    }

    /// The kind's own template variables.
    var variables: [String: String] {
        switch self {
        case .magicLink(let code, let link, let minutes), .recovery(let code, let link, let minutes),
             .invite(let code, let link, let minutes):
            ["code": code, "link": link, "valid_minutes": String(minutes)]
        case .emailChange(let code, let link, let newEmail, let minutes):
            ["code": code, "link": link, "new_email": newEmail, "valid_minutes": String(minutes)]
        case .emailChangeNotice(let newEmail, let cancelLink):
            ["new_email": newEmail, "cancel_link": cancelLink]
        case .passwordChanged, .test:
            [:]
        case .webhookDisabled(let url, let reason):
            ["url": url, "reason": reason]
        }
    }
}
