import Credentials
import Domain
import Foundation
import JSON
import Postgres
import Store

/// Webhook endpoints and their deliveries, as administrators manage them: validation, secret
/// generation (shown once, stored sealed), rotation with a 24-hour overlap, listing and replay.
/// The sender (`WebhookSender`) is built beside it by `dispatchd` and shares its seal.
package final class WebhookService: Sendable {
    package let pool: PostgresPool
    package let endpoints: WebhookEndpointStore
    package let deliveries: WebhookDeliveryStore
    package let seal: SecretSeal
    /// How long the old secret keeps signing after a rotation.
    package static let rotationOverlap: Duration = .seconds(86_400)
    static let maxDescriptionBytes = 1000
    static let maxURLBytes = 2048

    package init(pool: PostgresPool, serverSecret: String) {
        self.pool = pool
        endpoints = WebhookEndpointStore(pool: pool)
        deliveries = WebhookDeliveryStore(pool: pool)
        seal = Self.secretSeal(serverSecret: serverSecret)
    }

    /// Endpoint secrets must be usable (the sender signs with them), so they cannot be hashed;
    /// they are stored sealed under a key of their own.
    package static func secretSeal(serverSecret: String) -> SecretSeal {
        SecretSeal(serverSecret: serverSecret, label: "dispatch webhook secrets v1")
    }

    /// Registers an endpoint; the secret is returned only here (and by `rotate`).
    package func create(url: String, events: [String], description: String, by user: UUID) throws -> (WebhookEndpoint, WebhookSecret) {
        let secret = try WebhookSecret.generate()
        let endpoint = try endpoints.create(url: url, events: Self.normalized(events), description: description,
                                            sealedSecret: try seal.seal(secret.text), createdBy: user)
        return (endpoint, secret)
    }

    package func rotate(id: UUID) throws -> (WebhookEndpoint, WebhookSecret)? {
        let secret = try WebhookSecret.generate()
        guard let endpoint = try endpoints.rotate(id: id, sealedSecret: try seal.seal(secret.text), overlap: Self.rotationOverlap) else {
            return nil
        }
        return (endpoint, secret)
    }

    package func update(id: UUID, url: String?, events: [String]?, description: String?, enabled: Bool?) throws -> WebhookEndpoint? {
        try endpoints.update(id: id, url: url, events: events.map(Self.normalized), description: description, enabled: enabled)
    }

    /// Sorted, without duplicates: the stored list reads the same however it was sent.
    static func normalized(_ events: [String]) -> [String] {
        Array(Set(events)).sorted()
    }

    /// The problems of a `url` value (nil: fine).
    package static func checkURL(_ url: String, field: String = "url") -> FieldError? {
        if url.utf8.count > maxURLBytes { return FieldError(field: field, code: .tooLong, message: "At most \(maxURLBytes) bytes.") }
        if let problem = WebhookTargetPolicy.urlProblem(url) { return FieldError(field: field, code: .invalid, message: problem) }
        return nil
    }

    /// The problems of an `events` value: a non-empty array of known types or `*`.
    package static func checkEvents(_ value: JSONValue?) -> (events: [String]?, error: FieldError?) {
        guard case .array(let items)? = value, !items.isEmpty, items.count <= 64 else {
            return (nil, FieldError(field: "events", code: .invalid, message: "Must be a non-empty array of event types, or [\"*\"]."))
        }
        var events: [String] = []
        for item in items {
            guard case .string(let type) = item, WebhookEventType.isKnown(type) else {
                return (nil, FieldError(field: "events", code: .invalid,
                                        message: "Unknown event type; known: \(WebhookEventType.all.joined(separator: ", ")), or *."))
            }
            events.append(type)
        }
        return (events, nil)
    }

    package static func checkDescription(_ description: String) -> FieldError? {
        description.utf8.count > maxDescriptionBytes
            ? FieldError(field: "description", code: .tooLong, message: "At most \(maxDescriptionBytes) bytes.") : nil
    }
}
