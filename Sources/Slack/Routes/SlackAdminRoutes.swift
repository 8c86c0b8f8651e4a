import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// `/v1/integrations/slack` for administrators (sessions or their API keys): store the
/// integration (POST), read its state without secrets (GET), remove it (DELETE), and link
/// Slack users to accounts (`/v1/integrations/slack/users/{user_id}`).
enum SlackAdminRoutes {
    static let fields: Set<String> = ["team_id", "signing_secret", "previous_signing_secret", "incoming_webhook_url", "events"]

    static func register(on router: inout Router, auth: AuthService, slack: SlackService) {
        router.post("/v1/integrations/slack") { request, context in
            _ = try auth.requireAdmin(context)
            var body = try JSONRequestBody(request, allowed: fields, ignored: [])
            let teamID = body.string("team_id", required: true)
            let secret = body.string("signing_secret", required: true)
            let previous = nullableString(&body, "previous_signing_secret")
            let webhook = body.string("incoming_webhook_url", required: true)
            let events = stringArray(&body, "events")
            try body.finish()
            let view = try slack.configure(teamID: teamID, signingSecret: secret, previousSigningSecret: previous,
                                           webhookURL: webhook, events: events)
            return .response(try .json(json(view)))
        }
        router.get("/v1/integrations/slack") { _, context in
            _ = try auth.requireAdmin(context)
            guard let view = try slack.integration() else { throw DomainError.notFound("Slack integration") }
            return .response(try .json(json(view)))
        }
        router.delete("/v1/integrations/slack") { _, context in
            _ = try auth.requireAdmin(context)
            guard try slack.remove() else { throw DomainError.notFound("Slack integration") }
            return .response(HTTPResponse(status: .noContent))
        }
        router.get("/v1/integrations/slack/users") { _, context in
            _ = try auth.requireAdmin(context)
            return .response(try .json(["items": JSONValue.array(try slack.linkedUsers().map(json))]))
        }
        router.put("/v1/integrations/slack/users/{user_id}") { request, context in
            let admin = try auth.requireAdmin(context)
            let userID = try userID(context)
            var body = try JSONRequestBody(request, allowed: ["slack_user_id"], ignored: [])
            let slackUser = body.string("slack_user_id", required: true)
            try body.finish()
            guard let slackUser else { throw DomainError.internalError }
            return .response(try .json(json(try slack.link(userID: userID, slackUserID: slackUser, by: admin.id))))
        }
        router.delete("/v1/integrations/slack/users/{user_id}") { _, context in
            _ = try auth.requireAdmin(context)
            guard try slack.unlink(userID: try userID(context)) else { throw DomainError.notFound("Slack link") }
            return .response(HTTPResponse(status: .noContent))
        }
    }

    private static func userID(_ context: RequestContext) throws -> UUID {
        guard let id = UUID(uuidString: try context.pathParameter("user_id")) else { throw DomainError.notFound("user") }
        return id
    }

    private static func nullableString(_ body: inout JSONRequestBody, _ field: String) -> String? {
        if body.value(field) == .null { return nil }
        return body.string(field, required: false)
    }

    private static func stringArray(_ body: inout JSONRequestBody, _ field: String) -> [String]? {
        guard let value = body.value(field) else { return nil }
        guard case .array(let items) = value, items.count <= 50 else {
            body.add(FieldError(field: field, code: .invalidType, message: "Must be an array of event types (at most 50)."))
            return nil
        }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else {
                body.add(FieldError(field: field, code: .invalidType, message: "Must be an array of strings."))
                return nil
            }
            strings.append(text)
        }
        return strings
    }

    private static func json(_ view: SlackService.View) -> JSONValue {
        [
            "team_id": .string(view.teamID), "incoming_webhook_url": .string(view.webhookURL), "events": .array(view.events.map { .string($0) }),
            "previous_signing_secret_set": .bool(view.hasPreviousSigningSecret),
            "state": .string(view.pausedAt == nil ? "active" : "paused"), "paused_at": JSONOutput.timestamp(view.pausedAt),
            "pause_reason": view.pauseReason.map { .string($0) } ?? .null,
            "created_at": JSONOutput.timestamp(view.createdAt), "updated_at": JSONOutput.timestamp(view.updatedAt),
        ]
    }

    private static func json(_ link: SlackUserLinkStore.Link) -> JSONValue {
        ["user_id": .string(link.userID.uuidString.lowercased()), "slack_user_id": .string(link.slackUserID),
         "created_at": JSONOutput.timestamp(link.createdAt)]
    }
}
