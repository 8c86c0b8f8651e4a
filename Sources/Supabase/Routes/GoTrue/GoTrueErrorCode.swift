/// The codes `/auth/v1` answers with (supabase/auth `internal/api/apierrors/errorcode.go`, plus
/// the few of our own that GoTrue has no word for: `not_a_session`, `current_password_*`).
/// Routes throw these directly; errors from the machinery shared with `/v1` are translated to
/// them by `GoTrueErrorRenderer.translate`.
///
/// An enum so the family's codes can be enumerated: the client-shape tests render each one and
/// decode it as supabase-swift's Auth error payload.
enum GoTrueErrorCode: String, Sendable, CaseIterable {
    case validationFailed = "validation_failed"
    case badJSON = "bad_json"
    case badJWT = "bad_jwt"
    case noAuthorization = "no_authorization"
    case invalidCredentials = "invalid_credentials"
    case overRequestRateLimit = "over_request_rate_limit"
    case sessionNotFound = "session_not_found"
    case refreshTokenNotFound = "refresh_token_not_found"
    case refreshTokenAlreadyUsed = "refresh_token_already_used"
    case userNotFound = "user_not_found"
    case userBanned = "user_banned"
    case weakPassword = "weak_password"
    case unexpectedFailure = "unexpected_failure"
    /// An API key where only a session may act: signing out (keys are revoked on `/v1`), changing the address.
    case notASession = "not_a_session"
    case currentPasswordRequired = "current_password_required"
    case currentPasswordMismatch = "current_password_mismatch"
    // The e-mail flows.
    case otpExpired = "otp_expired"
    case overEmailSendRateLimit = "over_email_send_rate_limit"
    case emailExists = "email_exists"
    case flowStateNotFound = "flow_state_not_found"
    case badCodeVerifier = "bad_code_verifier"
    case phoneProviderDisabled = "phone_provider_disabled"
}

/// The gateway's refusals of the publishable key, the same on every Supabase-compatible family
/// (Supabase's API gateway sends them).
enum SupabaseGatewayCode: String, Sendable, CaseIterable {
    case noAPIKey = "no_api_key"
    case invalidAPIKey = "invalid_api_key"
}
