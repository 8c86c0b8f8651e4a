import Credentials
import Domain
import Mail
import RouteKit
import Store

/// The fields every mail-sending request shares (`/auth/v1` and `/v1` alike): `email` and an
/// optional PKCE challenge. The address must be one a mail can go to as typed: CR, LF and
/// other characters that could start a header or split an SMTP envelope are refused
/// (`MailAddress`), never cleaned.
extension JSONRequestBody {
    package mutating func emailRequest(redirectTo: String?, redirects: RedirectAllowList) -> AuthService.EmailRequest? {
        let email = mailAddress("email", required: true)
        let challenge = pkceChallenge()
        guard let email else { return nil }
        return AuthService.EmailRequest(email: email, challenge: challenge ?? nil, redirectTo: redirects.resolve(redirectTo))
    }

    /// A trimmed address that passes `UserRules.checkEmail` and can stand in a mail header.
    package mutating func mailAddress(_ field: String, required: Bool) -> String? {
        guard let raw = string(field, required: required) else { return nil }
        var problems: [FieldError] = []
        guard let email = UserRules.checkEmail(raw, field: field, errors: &problems) else {
            problems.forEach { add($0) }
            return nil
        }
        do {
            _ = try MailAddress(email)
        } catch {
            add(FieldError(field: field, code: .invalid, message: "Must be an email address like name@example.com."))
            return nil
        }
        return email
    }

    /// `code_challenge` and `code_challenge_method` (RFC 7636): both or neither; the method
    /// `s256` or `plain` in any case, as GoTrue reads it. nil: a bad pair (reported);
    /// `.some(nil)`: no PKCE.
    package mutating func pkceChallenge() -> EmailTokenStore.Challenge?? {
        let value = string("code_challenge", required: false).flatMap { $0.isEmpty ? nil : $0 }
        let methodName = string("code_challenge_method", required: false).flatMap { $0.isEmpty ? nil : $0 }
        switch (value, methodName) {
        case (nil, nil):
            return .some(nil)
        case (let value?, let methodName?):
            guard let method = PKCE.Method(rawValue: methodName.lowercased()) else {
                add(FieldError(field: "code_challenge_method", code: .invalid, message: "Must be s256 or plain."))
                return nil
            }
            guard PKCE.isWellFormed(value) else {
                add(FieldError(field: "code_challenge", code: .invalid,
                               message: "Must be 43 to 128 characters of letters, digits, '-', '.', '_' and '~'."))
                return nil
            }
            return .some(EmailTokenStore.Challenge(value: value, method: method))
        default:
            add(FieldError(field: value == nil ? "code_challenge" : "code_challenge_method", code: .required,
                           message: "PKCE needs both code_challenge and code_challenge_method."))
            return nil
        }
    }
}
