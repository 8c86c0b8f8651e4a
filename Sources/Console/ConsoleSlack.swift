import Foundation
import HTTPServer
import Slack
import Store

/// Slack in the console: the integration's state on the Integrations page (why it is paused,
/// who is linked) and, on a person's page, which Slack user acts as them, with the link and
/// unlink actions `PUT`/`DELETE /v1/integrations/slack/users/{id}` offer.
enum ConsoleSlack {
    static func register(on router: inout Router, site: ConsoleSite) {
        router.post("/console/people/{id}/slack/link") { request, context in
            try site.action(request, context) { viewer, form in
                guard let slack = site.slack else { throw ConsoleError.notFound("Slack") }
                let user = try ConsolePersonRoutes.person(context, site)
                let slackUserID = try form.required("slack_user_id", label: "Slack member ID").trimmingCharacters(in: .whitespaces)
                guard SlackService.isSlackID(slackUserID) else {
                    throw ConsoleError.invalid("A Slack member ID looks like U0123ABCD (in Slack: the person's profile, ⋮, Copy member ID).")
                }
                _ = try slack.link(userID: user.id, slackUserID: slackUserID, by: viewer.user.id)
                try site.record(viewer, action: "slack.link", targetType: "user", targetID: ConsolePersonRoutes.id(user),
                                summary: "Linked Slack user \(slackUserID) to \(user.email)")
                return .redirect("/console/people/\(ConsolePersonRoutes.id(user))?done=slack-linked")
            }
        }
        router.post("/console/people/{id}/slack/unlink") { request, context in
            try site.action(request, context) { viewer, _ in
                guard let slack = site.slack else { throw ConsoleError.notFound("Slack") }
                let user = try ConsolePersonRoutes.person(context, site)
                guard try slack.unlink(userID: user.id) else { throw ConsoleError.notFound("A Slack link of \(user.name)") }
                try site.record(viewer, action: "slack.unlink", targetType: "user", targetID: ConsolePersonRoutes.id(user),
                                summary: "Unlinked Slack from \(user.email)")
                return .redirect("/console/people/\(ConsolePersonRoutes.id(user))?done=slack-unlinked")
            }
        }
    }

    /// The Integrations page's Slack card; `configured: false` when no integration is stored.
    static func integration(_ slack: SlackService, site: ConsoleSite) throws -> [String: Any] {
        guard let view = try slack.integration() else { return ["configured": false] }
        let links = try slack.linkedUsers()
        let names = try Dictionary(uniqueKeysWithValues: links.compactMap { link in
            try site.auth.users.find(id: link.userID).map { (link.userID, $0.name) }
        })
        return [
            "configured": true, "team": view.teamID, "webhook": view.webhookURL, "events": view.events.joined(separator: ", "),
            "paused": view.pausedAt != nil, "pausedAt": ConsoleFormat.time(view.pausedAt), "pauseReason": view.pauseReason ?? "",
            "rotating": view.hasPreviousSigningSecret, "updated": ConsoleFormat.time(view.updatedAt),
            "links": links.map { link in
                ["slackUser": link.slackUserID, "name": names[link.userID] ?? "(account removed)",
                 "person": "/console/people/\(link.userID.uuidString.lowercased())"]
            },
            "noLinks": links.isEmpty,
        ]
    }

    /// A person page's Slack card: nil when the server runs without Slack.
    static func person(_ userID: UUID, site: ConsoleSite) throws -> [String: Any]? {
        guard let slack = site.slack else { return nil }
        let link = try slack.linkedUser(userID)
        return ["linked": link != nil, "slackUser": link?.slackUserID ?? "", "since": ConsoleFormat.time(link?.createdAt),
                "configured": try slack.integration() != nil]
    }
}
