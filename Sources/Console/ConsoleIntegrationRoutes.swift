import Foundation
import HTTP1
import HTTPServer
import Store
import Webhooks

/// `/console/integrations`: what leaves the server besides mail. Each webhook endpoint with its
/// state and last delivery, and Slack's state (why it is paused, who is linked). An endpoint's
/// page lists its deliveries with their failures and offers what `/v1/webhooks` offers an
/// admin: enable, disable, rotate the secret (shown once), replay a delivery. Each action
/// runs the service the API runs and writes an audit row.
enum ConsoleIntegrationRoutes {
    static let deliveryLimit = 50

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/integrations") { request, context in
            try site.page(request, context) { _ in
                ConsolePage(title: "Integrations", section: "/console/integrations", template: "integrations",
                            data: try overview(site))
            }
        }
        router.get("/console/integrations/webhooks/{id}") { request, context in
            try site.page(request, context) { _ in
                let (webhooks, endpoint) = try self.endpoint(context, site)
                let status = try statusFilter(context.query["status"])
                let deliveries = try webhooks.deliveries.list(endpointID: endpoint.id, status: status, limit: deliveryLimit)
                var data = describe(endpoint, last: deliveries.first)
                data["statuses"] = WebhookDelivery.Status.allCases.map { ["name": $0.rawValue, "selected": $0 == status] }
                data["deliveries"] = deliveries.map(describe)
                data["noDeliveries"] = deliveries.isEmpty
                return ConsolePage(title: "Webhook " + endpoint.url, section: "/console/integrations", template: "webhook", data: data)
            }
        }
        for (path, enabled) in [("enable", true), ("disable", false)] {
            router.post("/console/integrations/webhooks/{id}/\(path)") { request, context in
                try site.action(request, context) { viewer, _ in
                    let (webhooks, endpoint) = try self.endpoint(context, site)
                    _ = try webhooks.update(id: endpoint.id, url: nil, events: nil, description: nil, enabled: enabled)
                    try site.record(viewer, action: "webhook.\(path)", targetType: "webhook", targetID: text(endpoint.id),
                                    summary: "\(enabled ? "Enabled" : "Disabled") the webhook to \(endpoint.url)")
                    return .redirect("/console/integrations/webhooks/\(text(endpoint.id))?done=webhook-\(path)d")
                }
            }
        }
        router.post("/console/integrations/webhooks/{id}/rotate") { request, context in
            try site.action(request, context) { viewer, _ in
                let (webhooks, endpoint) = try self.endpoint(context, site)
                guard let (_, secret) = try webhooks.rotate(id: endpoint.id) else { throw ConsoleError.notFound("That webhook") }
                try site.record(viewer, action: "webhook.rotate", targetType: "webhook", targetID: text(endpoint.id),
                                summary: "Rotated the secret of the webhook to \(endpoint.url); the old one signs for 24 hours")
                return .page(ConsolePage(title: "New webhook secret", section: "/console/integrations", template: "secret-once", data: [
                    "url": endpoint.url, "secret": secret.text, "back": "/console/integrations/webhooks/\(text(endpoint.id))",
                ]))
            }
        }
        router.post("/console/integrations/webhooks/{id}/deliveries/{delivery}/replay") { request, context in
            try site.action(request, context) { viewer, _ in
                let (webhooks, endpoint) = try self.endpoint(context, site)
                guard let delivery = UUID(uuidString: try context.pathParameter("delivery")),
                      try webhooks.deliveries.replay(endpointID: endpoint.id, deliveryID: delivery) != nil
                else { throw ConsoleError.notFound("That delivery") }
                try site.record(viewer, action: "webhook.replay", targetType: "webhook", targetID: text(endpoint.id),
                                summary: "Replayed delivery \(text(delivery)) to \(endpoint.url)")
                return .redirect("/console/integrations/webhooks/\(text(endpoint.id))?done=replayed")
            }
        }
        router.post("/console/integrations/slack/resume") { request, context in
            try site.action(request, context) { viewer, _ in
                guard let slack = site.slack, try slack.resume() else { throw ConsoleError.notFound("A paused Slack integration") }
                try site.record(viewer, action: "slack.resume", targetType: "slack", targetID: "integration",
                                summary: "Resumed posting to Slack")
                return .redirect("/console/integrations?done=slack-resumed")
            }
        }
    }

    static func overview(_ site: ConsoleSite) throws -> [String: Any] {
        var data: [String: Any] = [:]
        if let webhooks = site.webhooks {
            let endpoints = try webhooks.endpoints.list()
            data["endpoints"] = try endpoints.map {
                describe($0, last: try webhooks.deliveries.list(endpointID: $0.id, status: nil, limit: 1).first)
            }
            data["noEndpoints"] = endpoints.isEmpty
        }
        if let slack = site.slack {
            data["slack"] = try ConsoleSlack.integration(slack, site: site)
        }
        return data
    }

    static func describe(_ endpoint: WebhookEndpoint, last: WebhookDelivery?) -> [String: Any] {
        [
            "id": text(endpoint.id), "url": endpoint.url, "description": endpoint.description,
            "events": endpoint.events.joined(separator: ", "), "enabled": endpoint.enabled,
            "disabledReason": endpoint.disabledReason ?? "turned off by an administrator",
            "failingSince": endpoint.failingSince.map(ConsoleFormat.time) ?? "",
            "created": ConsoleFormat.time(endpoint.createdAt),
            "rotating": endpoint.previousSecretExpiresAt.map { $0 > Date() } ?? false,
            "previousUntil": ConsoleFormat.time(endpoint.previousSecretExpiresAt),
            "last": last.map(describe) ?? [:], "hasLast": last != nil,
        ]
    }

    static func describe(_ delivery: WebhookDelivery) -> [String: Any] {
        [
            "id": text(delivery.id), "endpointID": text(delivery.endpointID), "event": delivery.eventID,
            "type": delivery.eventType, "status": delivery.status.rawValue,
            "failed": delivery.status == .dead || delivery.status == .retrying,
            "attempts": delivery.attempts, "httpStatus": delivery.lastStatus.map(String.init) ?? "—",
            "duration": delivery.lastDurationMilliseconds.map { "\($0) ms" } ?? "—", "error": delivery.lastError ?? "",
            "at": ConsoleFormat.time(delivery.lastAttemptAt ?? delivery.createdAt),
            "next": delivery.nextAttemptAt.map(ConsoleFormat.time) ?? "—",
        ]
    }

    static func endpoint(_ context: RequestContext, _ site: ConsoleSite) throws -> (WebhookService, WebhookEndpoint) {
        guard let webhooks = site.webhooks, let id = UUID(uuidString: try context.pathParameter("id")),
              let endpoint = try webhooks.endpoints.find(id: id)
        else { throw ConsoleError.notFound("That webhook") }
        return (webhooks, endpoint)
    }

    static func statusFilter(_ value: String?) throws -> WebhookDelivery.Status? {
        guard let value, !value.isEmpty else { return nil }
        guard let status = WebhookDelivery.Status(rawValue: value) else {
            throw ConsoleError.invalid("Status must be one of " + WebhookDelivery.Status.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        return status
    }

    static func text(_ id: UUID) -> String { id.uuidString.lowercased() }
}
