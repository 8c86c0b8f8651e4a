import Domain
import Foundation
import Postgres

/// `webhook_deliveries` for the admins' API: the listing and replay. The sender's side is
/// `WebhookDeliveryQueue`.
public struct WebhookDeliveryStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    static let statusSQL = """
        CASE WHEN d.sent_at IS NOT NULL THEN 'succeeded' WHEN d.dead_at IS NOT NULL THEN 'dead'
             WHEN d.attempts = 0 OR d.last_attempt_at IS NULL THEN 'pending' ELSE 'retrying' END
        """

    /// The endpoint's newest deliveries (at most `limit`), optionally only those in `status`.
    public func list(endpointID: UUID, status: WebhookDelivery.Status?, limit: Int) throws -> [WebhookDelivery] {
        try pool.query("""
            SELECT d.id, d.endpoint_id, d.event_id, \(unsafeSQL: WebhookDeliveryQueue.copiedSQL("d", "type")) AS type, \(unsafeSQL: Self.statusSQL) AS status, d.attempts,
                   d.last_status, d.last_duration_ms, d.last_error, d.last_attempt_at, d.created_at,
                   CASE WHEN d.sent_at IS NULL AND d.dead_at IS NULL THEN d.next_attempt_at END AS next_attempt_at
            FROM webhook_deliveries d
            WHERE d.endpoint_id = \(endpointID) AND (\(status?.rawValue)::text IS NULL OR \(unsafeSQL: Self.statusSQL) = \(status?.rawValue)::text)
            ORDER BY d.created_at DESC, d.id DESC LIMIT \(limit)
            """).map { row in
            WebhookDelivery(id: try row.decode("id"), endpointID: try row.decode("endpoint_id"), eventID: try row.decode("event_id"),
                            eventType: try row.decode("type"),
                            status: WebhookDelivery.Status(rawValue: try row.decode("status")) ?? .pending,
                            attempts: Int(try row.decode("attempts", as: Int32.self)),
                            lastStatus: try row.decode("last_status", as: Int32?.self).map(Int.init),
                            lastDurationMilliseconds: try row.decode("last_duration_ms", as: Int32?.self).map(Int.init),
                            lastError: try row.decode("last_error"), lastAttemptAt: try row.decode("last_attempt_at"),
                            nextAttemptAt: try row.decode("next_attempt_at"), createdAt: try row.decode("created_at"))
        }
    }

    /// Queues a new delivery of the same event (the same `webhook-id`) to the same endpoint;
    /// nil when the delivery is not the endpoint's.
    public func replay(endpointID: UUID, deliveryID: UUID) throws -> UUID? {
        try pool.query("""
            INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload)
            SELECT endpoint_id, event_id, type, payload FROM webhook_deliveries WHERE id = \(deliveryID) AND endpoint_id = \(endpointID)
            RETURNING id
            """).first.map { try $0.decode("id") }
    }
}
