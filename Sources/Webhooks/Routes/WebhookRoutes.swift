import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// `/v1/webhooks`: administrators (a session or an admin's API key) manage endpoints and
/// their deliveries; anyone else gets 403. The secret appears only in the answers of create
/// and rotate-secret.
package enum WebhookRoutes {
    package static func register(on router: inout Router, auth: AuthService, webhooks: WebhookService) {
        router.post("/v1/webhooks") { request, context in
            let admin = try auth.requireAdmin(context)
            var body = try JSONRequestBody(request, allowed: ["url", "events", "description"])
            let url = body.string("url", required: true)
            if let url { body.add(WebhookService.checkURL(url)) }
            let (events, eventsError) = WebhookService.checkEvents(body.value("events"))
            body.add(eventsError)
            let description = body.string("description", required: false) ?? ""
            body.add(WebhookService.checkDescription(description))
            try body.finish()
            guard let url, let events else { throw JSONRequestBody.validationFailed(body.errors) }
            let (endpoint, secret) = try webhooks.create(url: url, events: events, description: description, by: admin.id)
            var json = WebhookJSON.endpoint(endpoint)
            json["secret"] = .string(secret.text)
            return .response(try .json(JSONValue.object(json), status: .created,
                                       headers: ["Location": "/v1/webhooks/\(endpoint.id.uuidString.lowercased())"]))
        }
        router.get("/v1/webhooks") { _, context in
            _ = try auth.requireAdmin(context)
            return .response(try .json(["items": JSONValue.array(try webhooks.endpoints.list().map { .object(WebhookJSON.endpoint($0)) })]))
        }
        router.get("/v1/webhooks/{id}") { _, context in
            _ = try auth.requireAdmin(context)
            return .response(try .json(JSONValue.object(WebhookJSON.endpoint(try find(context, webhooks)))))
        }
        router.patch("/v1/webhooks/{id}") { request, context in
            _ = try auth.requireAdmin(context)
            let id = try endpointID(context)
            var body = try JSONRequestBody(request, allowed: ["url", "events", "description", "enabled"])
            let url = body.string("url", required: false)
            if let url { body.add(WebhookService.checkURL(url)) }
            var events: [String]?
            if body.contains("events") {
                let checked = WebhookService.checkEvents(body.value("events"))
                events = checked.events
                body.add(checked.error)
            }
            let description = body.string("description", required: false)
            if let description { body.add(WebhookService.checkDescription(description)) }
            let enabled = body.bool("enabled")
            try body.finish()
            guard let endpoint = try webhooks.update(id: id, url: url, events: events, description: description, enabled: enabled) else {
                throw DomainError.notFound("webhook")
            }
            return .response(try .json(JSONValue.object(WebhookJSON.endpoint(endpoint))))
        }
        router.delete("/v1/webhooks/{id}") { _, context in
            _ = try auth.requireAdmin(context)
            guard try webhooks.endpoints.delete(id: try endpointID(context)) else { throw DomainError.notFound("webhook") }
            return .response(HTTPResponse(status: .noContent))
        }
        router.post("/v1/webhooks/{id}/rotate-secret") { _, context in
            _ = try auth.requireAdmin(context)
            guard let (endpoint, secret) = try webhooks.rotate(id: try endpointID(context)) else { throw DomainError.notFound("webhook") }
            var json = WebhookJSON.endpoint(endpoint)
            json["secret"] = .string(secret.text)
            return .response(try .json(JSONValue.object(json)))
        }
        WebhookDeliveryRoutes.register(on: &router, auth: auth, webhooks: webhooks)
    }

    static func endpointID(_ context: RequestContext) throws -> UUID {
        guard let id = UUID(uuidString: try context.pathParameter("id")) else { throw DomainError.notFound("webhook") }
        return id
    }

    static func find(_ context: RequestContext, _ webhooks: WebhookService) throws -> WebhookEndpoint {
        guard let endpoint = try webhooks.endpoints.find(id: try endpointID(context)) else { throw DomainError.notFound("webhook") }
        return endpoint
    }
}
