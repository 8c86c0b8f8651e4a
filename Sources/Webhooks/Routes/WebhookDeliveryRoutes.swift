import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// `/v1/webhooks/{id}/deliveries`: the delivery log and replay (a new delivery of the same
/// event, so the same `webhook-id`).
enum WebhookDeliveryRoutes {
    static let defaultLimit = 50
    static let maxLimit = 200

    static func register(on router: inout Router, auth: AuthService, webhooks: WebhookService) {
        router.get("/v1/webhooks/{id}/deliveries") { _, context in
            _ = try auth.requireAdmin(context)
            let endpoint = try WebhookRoutes.find(context, webhooks)
            var status: WebhookDelivery.Status?
            if let text = context.query["status"] {
                guard let parsed = WebhookDelivery.Status(rawValue: text) else {
                    throw DomainError.badRequest(.invalidParameter, "status must be one of: "
                                                 + WebhookDelivery.Status.allCases.map(\.rawValue).joined(separator: ", ") + ".")
                }
                status = parsed
            }
            var limit = defaultLimit
            if let text = context.query["limit"] {
                guard let parsed = Int(text), (1...maxLimit).contains(parsed) else {
                    throw DomainError.badRequest(.invalidParameter, "limit must be an integer from 1 to \(maxLimit).")
                }
                limit = parsed
            }
            let items = try webhooks.deliveries.list(endpointID: endpoint.id, status: status, limit: limit)
            return .response(try .json(["items": JSONValue.array(items.map(WebhookJSON.delivery))]))
        }
        router.post("/v1/webhooks/{id}/deliveries/{delivery_id}/replay") { _, context in
            _ = try auth.requireAdmin(context)
            let endpointID = try WebhookRoutes.endpointID(context)
            guard let deliveryID = UUID(uuidString: try context.pathParameter("delivery_id")),
                  let replay = try webhooks.deliveries.replay(endpointID: endpointID, deliveryID: deliveryID),
                  let delivery = try webhooks.deliveries.list(endpointID: endpointID, status: nil, limit: maxLimit)
                      .first(where: { $0.id == replay })
            else { throw DomainError.notFound("webhook delivery") }
            return .response(try .json(WebhookJSON.delivery(delivery), status: .accepted))
        }
    }
}
