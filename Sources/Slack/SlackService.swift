import Credentials
import Domain
import Foundation
import Logging
import OutboundHTTP
import Mail
import Postgres
import ServiceKit
import Store
import Synchronization

/// Slack, both ways, for one workspace: the integration an administrator stores (its
/// credentials sealed), the Slack users linked to accounts, the signed inbound requests that
/// create tasks (`SlackService+Inbound`), and the sender that posts the chosen events to the
/// incoming webhook and follow-ups to `response_url` (`SlackSender`).
package final class SlackService: Sendable {
    package let pool: PostgresPool
    package let settings: SlackSettings
    package let seal: SecretSeal
    /// PUBLIC_URL: the base of the links the posts carry.
    package let links: PublicLinks
    package let logger: Logger
    package let integrations: SlackIntegrationStore
    package let userLinks: SlackUserLinkStore
    package let outbox: SlackOutboxStore
    package let receipts = SlackReceiptStore()
    package let scan: SlackEventScan
    /// No connect guard: every URL is checked against SLACK_HOOKS_BASE_URL before it is used.
    package let transport: HTTPPoster
    package let worker: OutboxWorker
    package let counts = Mutex(SlackCounts())

    /// Event types an administrator may choose to post.
    package static let eventTypes: [String] = ["task", "activity"].flatMap { noun in
        ["created", "claimed", "released", "completed", "deleted", "status_changed"].map { "\(noun).\($0)" }
    }
    package static let defaultEvents = ["task.created", "task.claimed", "task.completed"]

    package init(pool: PostgresPool, serverSecret: String, links: PublicLinks, settings: SlackSettings = SlackSettings(),
                logger: Logger) {
        self.pool = pool
        self.settings = settings
        seal = SecretSeal(serverSecret: serverSecret, label: "dispatch slack credentials v1")
        self.links = links
        self.logger = logger
        worker = OutboxWorker(name: "slack-sender", subject: "slack outbox", logger: logger)
        integrations = SlackIntegrationStore(pool: pool)
        userLinks = SlackUserLinkStore(pool: pool)
        outbox = SlackOutboxStore(pool: pool)
        scan = SlackEventScan(pool: pool)
        transport = HTTPPoster(connectGuard: nil, connectTimeout: settings.connectTimeout, timeout: settings.timeout,
                               userAgent: "Dispatch-Slack/1")
    }

    /// The integration as an administrator reads it: never a secret, the webhook URL redacted.
    package struct View: Sendable {
        package var teamID: String
        package var webhookURL: String
        package var events: [String]
        package var hasPreviousSigningSecret: Bool
        package var pausedAt: Date?
        package var pauseReason: String?
        package var createdAt: Date
        package var updatedAt: Date
    }

    package func integration() throws -> View? {
        try integrations.get().map(view)
    }

    /// Stores (or replaces) the integration and resumes it; 422 with every bad field.
    package func configure(teamID: String?, signingSecret: String?, previousSigningSecret: String?, webhookURL: String?,
                           events: [String]?) throws -> View {
        var errors: [FieldError] = []
        if let teamID, !Self.isSlackID(teamID) {
            errors.append(FieldError(field: "team_id", code: .invalidValue, message: "Must be a Slack team id such as T0123ABCD."))
        }
        for (field, secret) in [("signing_secret", signingSecret), ("previous_signing_secret", previousSigningSecret)] {
            if let secret, secret.count < 16 || secret.count > 200 || secret.contains(where: \.isWhitespace) {
                errors.append(FieldError(field: field, code: .invalidValue, message: "Must be the app's signing secret (Basic Information)."))
            }
        }
        if let webhookURL, !settings.allows(webhookURL) {
            errors.append(FieldError(field: "incoming_webhook_url", code: .invalidValue,
                                     message: "Must be a Slack incoming webhook URL under \(settings.hooksBaseURL)."))
        }
        let chosen = events ?? Self.defaultEvents
        if let unknown = chosen.first(where: { !Self.eventTypes.contains($0) }) {
            errors.append(FieldError(field: "events", code: .invalidValue,
                                     message: "Unknown event \(unknown.prefix(60)); one of: " + Self.eventTypes.joined(separator: ", ") + "."))
        }
        if !errors.isEmpty { throw DomainError.validation(errors) }
        guard let teamID, let signingSecret, let webhookURL else { throw DomainError.internalError }
        let record = try integrations.save(teamID: teamID, signingSecret: try seal.seal(signingSecret),
                                           previousSigningSecret: try previousSigningSecret.map { try seal.seal($0) },
                                           incomingWebhookURL: try seal.seal(webhookURL), events: Array(Set(chosen)).sorted())
        logger.info("slack integration stored", metadata: ["team_id": .string(teamID)])
        return view(record)
    }

    package func remove() throws -> Bool {
        try integrations.delete()
    }

    package func link(userID: UUID, slackUserID: String, by admin: UUID) throws -> SlackUserLinkStore.Link {
        guard Self.isSlackID(slackUserID) else {
            throw DomainError.validation(field: "slack_user_id", code: .invalidValue, message: "Must be a Slack user id such as U0123ABCD.")
        }
        return try userLinks.link(userID: userID, slackUserID: slackUserID, by: admin)
    }

    package func unlink(userID: UUID) throws -> Bool { try userLinks.unlink(userID: userID) }
    package func linkedUsers() throws -> [SlackUserLinkStore.Link] { try userLinks.list() }
    package func linkedUser(_ userID: UUID) throws -> SlackUserLinkStore.Link? { try userLinks.find(userID: userID) }

    /// Posting starts again after a pause (the channel was unarchived, the app reinstalled);
    /// false when the integration was not paused.
    package func resume() throws -> Bool {
        let resumed = try integrations.resume()
        if resumed { logger.info("slack integration resumed") }
        return resumed
    }

    /// Slack's ids: upper-case letters and digits (T…, U…, W…, C…).
    package static func isSlackID(_ text: String) -> Bool {
        (2...32).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
    }

    /// `…/services/T…/B…/••••`: enough to recognise the hook, never enough to post to it.
    package static func redact(_ url: String) -> String {
        var parts = url.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3 else { return "••••" }
        parts[parts.count - 1] = "••••"
        return parts.joined(separator: "/")
    }

    private func view(_ record: SlackIntegrationStore.Record) -> View {
        View(teamID: record.teamID, webhookURL: seal.open(record.incomingWebhookURL).map(Self.redact) ?? "(does not open: JWT_SECRET changed)",
             events: record.events, hasPreviousSigningSecret: record.previousSigningSecret != nil, pausedAt: record.pausedAt,
             pauseReason: record.pauseReason, createdAt: record.createdAt, updatedAt: record.updatedAt)
    }

    /// The link a post's button opens.
    package func taskLink(entityType: String, id: UUID) -> String {
        var base = links.baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/console/work/\(entityType == "activity" ? "activities" : "tasks")/\(id.uuidString.lowercased())"
    }
}

/// What this instance's Slack sender did since start (`/metrics`).
package struct SlackCounts: Sendable, Equatable {
    package var sent = 0
    package var failedAttempts = 0
    package var dead = 0
    package var pauses = 0
    package var tasksCreated = 0
    package var refusedRequests = 0
    package var pending: Int?
    package var deadStored: Int?
}
