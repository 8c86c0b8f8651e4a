import Foundation
import JSON
import RouteKit
import Store

/// The JSON shapes of endpoints (never the secret) and deliveries.
enum WebhookJSON {
    static func endpoint(_ endpoint: WebhookEndpoint) -> [String: JSONValue] {
        [
            "id": .string(endpoint.id.uuidString.lowercased()),
            "url": .string(endpoint.url),
            "events": .array(endpoint.events.map(JSONValue.string)),
            "description": .string(endpoint.description),
            "enabled": .bool(endpoint.enabled),
            "disabled_reason": endpoint.disabledReason.map(JSONValue.string) ?? .null,
            "previous_secret_expires_at": JSONOutput.timestamp(
                endpoint.previousSecretExpiresAt.flatMap { $0 > Date() ? $0 : nil }),
            "created_by": endpoint.createdBy.map { .string($0.uuidString.lowercased()) } ?? .null,
            "created_at": JSONOutput.timestamp(endpoint.createdAt),
            "updated_at": JSONOutput.timestamp(endpoint.updatedAt),
        ]
    }

    static func delivery(_ delivery: WebhookDelivery) -> JSONValue {
        [
            "id": .string(delivery.id.uuidString.lowercased()),
            "event_id": .string(delivery.eventID),
            "type": .string(delivery.eventType),
            "status": .string(delivery.status.rawValue),
            "attempts": .number(Double(delivery.attempts)),
            "http_status": delivery.lastStatus.map { .number(Double($0)) } ?? .null,
            "duration_ms": delivery.lastDurationMilliseconds.map { .number(Double($0)) } ?? .null,
            "error": delivery.lastError.map(JSONValue.string) ?? .null,
            "last_attempt_at": JSONOutput.timestamp(delivery.lastAttemptAt),
            "next_attempt_at": JSONOutput.timestamp(delivery.nextAttemptAt),
            "created_at": JSONOutput.timestamp(delivery.createdAt),
        ]
    }
}
