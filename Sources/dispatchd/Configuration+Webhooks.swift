import Foundation
import Logging
import Mail
import Webhooks

extension Configuration {
    /// Outgoing webhooks (`WEBHOOK_*`, docs/integrators/webhooks.md).
    struct WebhookSettings: Sendable {
        /// WEBHOOK_ALLOWED_HOSTS: hosts, addresses or CIDR ranges the address guard lets
        /// through although they are not public (default: none).
        var policy = WebhookTargetPolicy()
        /// WEBHOOK_TIMEOUT: how long one delivery may take, connecting included (seconds; default 15).
        var timeout: Double = 15

        static func load(_ reader: EnvironmentReader) throws(ConfigurationError) -> WebhookSettings {
            var settings = WebhookSettings()
            if let text = reader.string(.webhookAllowedHosts) {
                do {
                    settings.policy = try WebhookTargetPolicy(parsing: text)
                } catch {
                    throw ConfigurationError("WEBHOOK_ALLOWED_HOSTS must be comma-separated host names, addresses or CIDR ranges (\(error.message))")
                }
            }
            let only = reader.string(.webhookOnlyAllowedHosts)?.lowercased()
            guard only == nil || ["true", "false", "1", "0"].contains(only ?? "") else {
                throw ConfigurationError("WEBHOOK_ONLY_ALLOWED_HOSTS must be true or false (got \"\(only ?? "")\")")
            }
            settings.policy.onlyAllowed = only == "true" || only == "1"
            settings.timeout = try reader.seconds(.webhookTimeout, default: 15)
            return settings
        }

        /// The sender for `serve`: the lease outlasts a whole delivery by a wide margin.
        func sender(service: WebhookService, outbox: MailOutbox, logger: Logger) -> WebhookSender {
            let timeout = Duration.milliseconds(Int64(self.timeout * 1000))
            var senderPolicy = WebhookSender.Policy()
            senderPolicy.lease = timeout * 2 + .seconds(10)
            return WebhookSender(service: service, client: WebhookHTTPClient(policy: policy, connectTimeout: min(timeout, .seconds(10)),
                                                                             timeout: timeout),
                                 policy: senderPolicy, notice: WebhookDisabledNotice(outbox: outbox, pool: service.pool),
                                 logger: logger)
        }
    }
}
