import Domain
import HTTP1
import HTTPServer
import JSON
import RouteKit

/// The one place `/auth/v1` errors are rendered: GoTrue's API-version 2024-01-01 shape
/// `{"code": "<string>", "message": "…"}` with `X-Supabase-Api-Version: 2024-01-01`, which is
/// what makes supabase-swift and supabase-py read `code` as a string error code.
///
/// Handlers of the family throw GoTrue's codes directly where they have their own
/// (`refresh_token_already_used`, `current_password_mismatch`, …). Errors from the machinery
/// shared with `/v1` (authentication, throttle, body parsing, database mapping) speak the
/// contract's codes and are translated by `translate`. Codes that make clients delete their
/// session (`session_not_found`, `refresh_token_not_found`, `refresh_token_already_used`) are
/// only ever produced for a session that really ended: a database outage stays a 503.
package struct GoTrueErrorRenderer: ErrorRendering {
    package init() {}

    package func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        Self.response(for: error, context: context)
    }

    static let apiVersionHeader = "X-Supabase-Api-Version"
    static let apiVersion = "2024-01-01"

    static func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        render(httpError(for: error, context: context))
    }

    /// `error` as GoTrue would answer it: the body's code, message and status (also what the
    /// verify redirect puts in its fragment).
    static func httpError(for error: any Error, context: RequestContext) -> HTTPError {
        translate(APIErrorRenderer.contract(for: error))
    }

    static func render(_ error: HTTPError) -> HTTPResponse {
        var body: [String: JSONValue] = ["code": .string(error.code), "message": .string(error.message)]
        // GoTrue's weak-password answer carries the reasons; clients build their error from them.
        if error.code == GoTrueErrorCode.weakPassword.rawValue, let details = error.details { body["weak_password"] = details }
        var response = HTTPResponse.jsonError(status: error.status, code: error.code, message: error.message)
        if let encoded = try? HTTPResponse.json(JSONValue.object(body), status: error.status) { response = encoded }
        for field in error.extraHeaders { response.headers.add(name: field.name, value: field.value) }
        response.headers.set(name: apiVersionHeader, value: apiVersion)
        return response
    }

    /// Contract codes from the shared machinery → GoTrue's (supabase/auth `apierrors/errorcode.go`).
    static func translate(_ error: HTTPError) -> HTTPError {
        var translated = error
        switch error.code {
        case ErrorCode.invalidCredentials.rawValue:
            // GoTrue answers a wrong password with 400, not 401.
            translated.status = .badRequest
            translated.message = "Invalid login credentials"
        case ErrorCode.unauthorized.rawValue:
            let tokenGiven = error.extraHeaders["WWW-Authenticate"]?.contains("invalid_token") ?? false
            translated.status = tokenGiven ? .forbidden : .unauthorized
            translated.code = (tokenGiven ? GoTrueErrorCode.badJWT : .noAuthorization).rawValue
            translated.message = tokenGiven ? "invalid JWT: the access token is invalid"
                : "This endpoint requires a valid Bearer token"
        case ErrorCode.validationFailed.rawValue:
            translated.message = fieldMessages(error) ?? error.message
        default:
            guard let answer = answers[error.code] else { break }
            translated.code = answer.code.rawValue
            if let status = answer.status { translated.status = status }
            if let message = answer.message { translated.message = message }
        }
        translated.details = error.code == GoTrueErrorCode.weakPassword.rawValue ? error.details : nil
        return translated
    }

    /// Contract codes that always become the same GoTrue answer: its code, and the status and
    /// message where GoTrue's differ from ours (nil keeps ours, e.g. 429 with its Retry-After).
    static let answers: [String: (code: GoTrueErrorCode, status: HTTPStatus?, message: String?)] = [
        ErrorCode.rateLimited.rawValue: (.overRequestRateLimit, nil, nil),
        ErrorCode.tokenExpired.rawValue: (.badJWT, .forbidden, "invalid JWT: token is expired"),
        ErrorCode.sessionRevoked.rawValue: (.sessionNotFound, .forbidden, "Session from session_id claim in JWT does not exist"),
        // Status (400 or 415) kept.
        ErrorCode.invalidJSON.rawValue: (.badJSON, nil, nil),
        ErrorCode.invalidEncoding.rawValue: (.badJSON, nil, nil),
        ErrorCode.unsupportedMediaType.rawValue: (.badJSON, nil, nil),
        ErrorCode.internalError.rawValue: (.unexpectedFailure, nil, nil),
        // The e-mail flows.
        ErrorCode.emailCodeInvalid.rawValue: (.otpExpired, .forbidden, "Token has expired or is invalid"),
        ErrorCode.emailRateLimited.rawValue: (.overEmailSendRateLimit, nil, nil),
        ErrorCode.emailTaken.rawValue: (.emailExists, .unprocessableContent, "A user with this email address has already been registered"),
        ErrorCode.authCodeInvalid.rawValue: (.flowStateNotFound, .notFound, "invalid flow state, no valid flow state found"),
        ErrorCode.codeVerifierMismatch.rawValue: (.badCodeVerifier, .badRequest, nil),
    ]

    /// "password: Must be at least 8 characters." from the contract's per-field details.
    static func fieldMessages(_ error: HTTPError) -> String? {
        guard case .array(let entries)? = error.details else { return nil }
        let parts: [String] = entries.compactMap { entry in
            guard case .object(let fields) = entry, case .string(let field)? = fields["field"],
                  case .string(let message)? = fields["message"] else { return nil }
            return "\(field): \(message)"
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
