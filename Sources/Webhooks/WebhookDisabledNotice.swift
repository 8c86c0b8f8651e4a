import Mail
import Postgres
import Store

/// Tells an endpoint's creator, through the mail outbox, that the server disabled it (a 410,
/// or every attempt failing for 5 days): the mail is queued in one transaction and delivered
/// by the mail sender with its own retries. A deactivated or deleted creator gets nothing.
package struct WebhookDisabledNotice: Sendable {
    let outbox: MailOutbox
    let endpoints: WebhookEndpointStore
    let pool: PostgresPool

    package init(outbox: MailOutbox, pool: PostgresPool) {
        self.outbox = outbox
        self.pool = pool
        endpoints = WebhookEndpointStore(pool: pool)
    }

    func send(_ endpoint: WebhookEndpoint) throws {
        try pool.withTransaction { connection in
            guard let email = try endpoints.creatorEmail(of: endpoint, on: connection) else { return }
            _ = try outbox.enqueue(.webhookDisabled(url: endpoint.url, reason: endpoint.disabledReason ?? "disabled by the server"),
                                   to: try MailAddress(email), on: connection)
        }
    }
}
