import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON

/// `POST /integrations/slack/commands`, `/interactivity` and `/events`. Each checks the
/// signature over the raw body (`SlackSignature`, five-minute window, constant time) before
/// anything reads the body; a bad or stale one is 401 and nothing is written. Answers come
/// within Slack's 3 s: the work is one short transaction, and follow-ups wait in the outbox.
enum SlackInboundRoutes {
    /// Slack's bodies are small (a command, a shortcut's payload with the message).
    static let maxBodyBytes = 256 * 1024

    static func register(on router: inout Router, slack: SlackService) {
        router.post("/integrations/slack/commands") { request, _ in
            let teamID = try verified(request, slack)
            guard let form = SlackForm.parse(request.body) else { throw malformed("The body is not a form.") }
            return .response(try reply(slack.command(form, teamID: teamID)))
        }
        router.post("/integrations/slack/interactivity") { request, _ in
            let teamID = try verified(request, slack)
            guard let form = SlackForm.parse(request.body), let payload = form["payload"],
                  let value = try? JSONDecoder().decode(JSONValue.self, from: Data(payload.utf8)) else {
                throw malformed("The body is not a form with a JSON payload.")
            }
            return .response(try reply(slack.shortcut(value, teamID: teamID)))
        }
        router.post("/integrations/slack/events") { request, _ in
            _ = try verified(request, slack)
            guard case .object(let event)? = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body)) else {
                throw malformed("The body is not a JSON object.")
            }
            if event["type"] == "url_verification", case .string(let challenge)? = event["challenge"] {
                return .response(try .json(["challenge": JSONValue.string(challenge)]))
            }
            // No event subscriptions are acted on yet: acknowledged so Slack does not retry.
            return .response(HTTPResponse(status: .ok))
        }
    }

    /// The connected team's id once the signature holds; 401 (nothing read, nothing written)
    /// otherwise, 404 when no integration is stored.
    private static func verified(_ request: HTTPRequest, _ slack: SlackService) throws -> String {
        guard request.body.count <= maxBodyBytes else {
            throw DomainError(.contentTooLarge, .bodyTooLarge, "The body is larger than \(maxBodyBytes) bytes.")
        }
        guard let (teamID, secrets) = try slack.verifyingSecrets() else { throw DomainError.notFound("Slack integration") }
        do {
            try SlackSignature.verify(signature: request.headers["X-Slack-Signature"], timestamp: request.headers["X-Slack-Request-Timestamp"],
                                      body: request.body, secrets: secrets, now: Date())
        } catch {
            slack.refused()
            let message = switch error {
            case .missing: "X-Slack-Signature and X-Slack-Request-Timestamp are required."
            case .stale: "X-Slack-Request-Timestamp is more than five minutes away from the server's clock."
            case .mismatch: "X-Slack-Signature does not match the body."
            }
            throw HTTPError(status: .unauthorized, code: ErrorCode.unauthorized.rawValue, message: message)
        }
        return teamID
    }

    private static func reply(_ reply: SlackService.Reply) throws -> HTTPResponse {
        switch reply {
        case .acknowledged: HTTPResponse(status: .ok)
        case .ephemeral(let text): try .json(["response_type": JSONValue.string("ephemeral"), "text": .string(text)])
        }
    }

    private static func malformed(_ message: String) -> DomainError {
        DomainError.badRequest(.invalidParameter, message)
    }
}
