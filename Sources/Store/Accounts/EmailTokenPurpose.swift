/// What a code or link sent by e-mail is for (`auth_email_tokens.purpose`, migration 0021).
public enum EmailTokenPurpose: String, Sendable, CaseIterable {
    /// Signs in (POST /auth/v1/otp).
    case magicLink = "magiclink"
    /// Signs in and lets the session set a new password once without the current one.
    case recovery
    /// The first sign-in of an invited account; the session then sets its first password.
    case invite
    /// Confirms a new address; verifying it moves the account there.
    case emailChange = "email_change"

    /// Whether the session a verification opens may set a password without `current_password`.
    public var grantsPasswordReset: Bool { self == .recovery || self == .invite }

    /// The purposes GoTrue's verification `type` accepts. GoTrue stores magic links and
    /// recoveries in one column, so either type verifies either, and `email` verifies every
    /// sign-in kind; what the session may do afterwards comes from the stored purpose, never
    /// from the type the client sent. nil: not a type of ours.
    public static func accepted(byType type: String) -> [EmailTokenPurpose]? {
        switch type {
        case "email": [.magicLink, .recovery, .invite]
        case "magiclink", "recovery": [.magicLink, .recovery]
        case "invite", "signup": [.invite]
        case "email_change": [.emailChange]
        default: nil
        }
    }
}
