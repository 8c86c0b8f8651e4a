import Domain
import Foundation
import JSON
import Postgres
import Resources
import Store

/// The signed requests Slack sends (slash command, message shortcut). Each task is created
/// through `ResourceWriter`, the same rules as `POST /v1/tasks` (the linked person is the
/// declarer; no listing), in one short transaction with the request's receipt and any
/// follow-up queued for `response_url`; the follow-up itself is sent later by the sender.
extension SlackService {
    /// What to answer Slack within its 3 s.
    package enum Reply: Equatable, Sendable {
        /// An empty 200: acknowledged, nothing to show (a follow-up may come by response_url).
        case acknowledged
        /// A message only the requesting user sees.
        case ephemeral(String)
    }

    /// The integration's secrets, opened, for `SlackSignature.verify`; nil when there is no
    /// integration (or its secrets no longer open).
    package func verifyingSecrets() throws -> (teamID: String, secrets: [String])? {
        guard let record = try integrations.get(), let current = seal.open(record.signingSecret) else { return nil }
        return (record.teamID, [current] + (record.previousSigningSecret.flatMap(seal.open).map { [$0] } ?? []))
    }

    /// A refused signature, counted for `/metrics` (the route answers 401).
    package func refused() {
        counts.withLock { $0.refusedRequests += 1 }
    }

    /// `/dispatch <title>` from a slash command's form fields.
    package func command(_ form: [String: String], teamID: String) throws -> Reply {
        guard form["team_id"] == teamID else { return .ephemeral("This Slack workspace is not the one connected to Dispatch.") }
        let text = (form["text"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let slackUser = form["user_id"] ?? ""
        if text.isEmpty || text == "help" {
            return .ephemeral("Usage: `/dispatch <title>` creates a task under your name. `/dispatch link` tells you how to link your account.")
        }
        guard let account = try userLinks.account(slackUserID: slackUser) else { return .ephemeral(Self.unlinked(slackUser)) }
        if text == "link" { return .ephemeral("Your Slack account is linked to Dispatch: `/dispatch <title>` creates tasks under your name.") }
        guard let trigger = form["trigger_id"], !trigger.isEmpty, let channel = form["channel_id"] else {
            return .ephemeral("Slack sent this command without a trigger id or channel; nothing was created.")
        }
        let created = try createTask(key: "command:\(teamID):\(trigger)", account: account,
                                     title: text, description: nil, source: "\(channel):\(trigger)", followUp: nil)
        let link = taskLink(entityType: "task", id: created.id)
        return .ephemeral(created.isNew ? "Created task “\(SlackBlocks.escape(Self.title(from: text)))”: \(link)"
                                        : "This request already created a task: \(link)")
    }

    /// A message shortcut's `payload` (JSON), sent as the form field of that name.
    package func shortcut(_ payload: JSONValue, teamID: String) throws -> Reply {
        guard case .object(let fields) = payload, fields["type"] == "message_action" else { return .acknowledged }
        let responseURL = Self.string(fields["response_url"]).flatMap { settings.allows($0) ? $0 : nil }
        guard Self.string(Self.field(fields["team"], "id")) == teamID else { return .acknowledged }
        let slackUser = Self.string(Self.field(fields["user"], "id")) ?? ""
        guard let account = try userLinks.account(slackUserID: slackUser) else {
            if let responseURL { try queueResponse(responseURL, text: Self.unlinked(slackUser)) }
            return .acknowledged
        }
        guard let trigger = Self.string(fields["trigger_id"]), !trigger.isEmpty,
              let channel = Self.string(Self.field(fields["channel"], "id")),
              let ts = Self.string(Self.field(fields["message"], "ts")) ?? Self.string(fields["message_ts"]) else { return .acknowledged }
        let text = Self.string(Self.field(fields["message"], "text")) ?? ""
        _ = try createTask(key: "shortcut:\(teamID):\(trigger)", account: account, title: text,
                           description: String(text.unicodeScalars.prefix(FieldRules.descriptionMaximum)),
                           source: "\(channel):\(ts)", followUp: responseURL)
        return .acknowledged
    }

    /// Creates the task unless the receipt says this request already did; queues the
    /// follow-up in the same transaction.
    private func createTask(key: String, account: (id: UUID, isAdmin: Bool), title: String, description: String?,
                            source: String, followUp: String?) throws -> (id: UUID, isNew: Bool) {
        let sealedFollowUp = try followUp.map { try seal.seal($0) }
        let outcome: (id: UUID, isNew: Bool) = try pool.withTransaction { connection in
            guard try receipts.take(key, on: connection) else {
                guard let existing = try receipts.task(for: key, on: connection) else { throw DomainError.internalError }
                return (existing, false)
            }
            let id = UUID()
            var record: [String: JSONValue] = [
                "id": .string(id.uuidString.lowercased()), "title": .string(Self.title(from: title)),
                "created_via": "slack", "source_slack_messages": [.string(source)],
            ]
            if let description, !description.isEmpty { record["description"] = .string(description) }
            let writer = ResourceWriter(kind: .task, viewer: Viewer(userID: account.id, isAdmin: account.isAdmin), pool: pool,
                                        connection: connection)
            _ = try writer.insert(record: record)
            try receipts.complete(key, taskID: id, on: connection)
            if let sealedFollowUp {
                let body = try SlackBlocks.encode(["response_type": "ephemeral",
                                                   "text": .string("Created task: \(taskLink(entityType: "task", id: id))")])
                try outbox.enqueueResponse(target: sealedFollowUp, body: body, on: connection)
            }
            return (id, true)
        }
        if outcome.isNew {
            counts.withLock { $0.tasksCreated += 1 }
            logger.info("task created from slack", metadata: ["task_id": .string(outcome.id.uuidString.lowercased())])
        }
        return outcome
    }

    private func queueResponse(_ url: String, text: String) throws {
        let sealed = try seal.seal(url)
        let body = try SlackBlocks.encode(["response_type": "ephemeral", "text": .string(text)])
        try pool.withTransaction { connection in try outbox.enqueueResponse(target: sealed, body: body, on: connection) }
    }

    /// A task title from message text: its first non-empty line, within the title limit.
    static func title(from text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        guard let line else { return "Slack message" }
        return line.unicodeScalars.count <= FieldRules.titleMaximum ? line
            : String(String.UnicodeScalarView(line.unicodeScalars.prefix(FieldRules.titleMaximum - 1))) + "…"
    }

    static func unlinked(_ slackUser: String) -> String {
        "Your Slack account is not linked to Dispatch, so nothing was created. Ask a Dispatch administrator to link "
            + "Slack user \(isSlackID(slackUser) ? slackUser : "(unknown)") to your account (PUT /v1/integrations/slack/users/{your user id})."
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    static func field(_ value: JSONValue?, _ name: String) -> JSONValue? {
        if case .object(let fields)? = value { return fields[name] }
        return nil
    }
}
