import Foundation
import OutboundHTTP

/// What Slack's answer to one post means (its documented incoming-webhook errors).
package enum SlackVerdict: Equatable, Sendable {
    case sent
    /// Try again after this long (429 with Retry-After, 5xx, a network failure).
    case retry(after: Duration, reason: String)
    /// The hook or its channel is gone or closed to us: pause the integration, keep the post.
    case pause(reason: String)
    /// Slack will never accept this body: our bug. Dead at once, logged as an error.
    case invalidPayload(reason: String)
    /// Refused for good otherwise (attempts used up, a `response_url` that expired).
    case dead(reason: String)

    /// Errors that mean the webhook itself no longer works: retrying would only be refused.
    package static let pausing: Set<String> = [
        "no_service", "channel_not_found", "channel_is_archived", "action_prohibited", "no_team", "no_active_hooks",
        "invalid_token", "team_disabled", "posting_to_general_channel_denied",
    ]
    package static let payloadErrors: Set<String> = ["invalid_payload", "invalid_blocks", "invalid_blocks_format", "no_text"]

    /// `attempts`: this one included; `backoff`: the wait before the next one.
    package static func of(_ answer: HTTPPoster.Response, isPost: Bool, attempts: Int, maxAttempts: Int,
                           backoff: Duration) -> SlackVerdict {
        let word = answer.excerpt.trimmingCharacters(in: .whitespacesAndNewlines)
        let reason = "HTTP \(answer.status)" + (word.isEmpty ? "" : ": " + String(word.prefix(200)))
        if (200..<300).contains(answer.status) { return .sent }
        if answer.status == 429 {
            // Slack's own pacing, not a failure of the post: it never counts toward dead.
            return .retry(after: max(answer.retryAfter ?? .seconds(1), .seconds(1)), reason: reason)
        }
        if payloadErrors.contains(word) || (answer.status == 400 && word.hasPrefix("invalid_")) {
            return .invalidPayload(reason: reason)
        }
        if pausing.contains(word) || answer.status == 404 || answer.status == 410 || answer.status == 403 {
            // A response_url that is gone is just that request's follow-up: nothing to pause.
            return isPost ? .pause(reason: reason) : .dead(reason: reason)
        }
        return failed(reason, attempts: attempts, maxAttempts: maxAttempts, backoff: backoff,
                      retryAfter: answer.retryAfter)
    }

    package static func failed(_ reason: String, attempts: Int, maxAttempts: Int, backoff: Duration,
                               retryAfter: Duration? = nil) -> SlackVerdict {
        attempts >= maxAttempts ? .dead(reason: "\(reason) (after \(attempts) attempts)")
            : .retry(after: max(backoff, retryAfter ?? .zero), reason: reason)
    }
}
