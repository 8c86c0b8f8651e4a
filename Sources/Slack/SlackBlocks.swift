import Foundation
import JSON
import Store

/// A task event as a Block Kit message for an incoming webhook: a header with the title, a
/// section of fields (listing, priority, due date, who), a context line and a button opening
/// the task. Every text is clamped to Slack's limits (header 150, field 2000, section and the
/// notification fallback 3000, button label 75, URL 3000 characters), so a long title can
/// never make Slack refuse the post with `invalid_blocks`.
package enum SlackBlocks {
    package static let headerMaximum = 150
    package static let fieldMaximum = 2000
    package static let textMaximum = 3000
    package static let buttonLabelMaximum = 75
    package static let urlMaximum = 3000

    package static func message(_ event: SlackEventScan.Event, link: String) -> JSONValue {
        let noun = event.entityType == "activity" ? "activity" : "task"
        let verb = headline(event.type, noun: noun)
        let who: String = switch event.type.split(separator: ".").last {
        case "claimed"?: "Claimed by"
        case "released"?: "Released by"
        case "completed"?: "Completed by"
        case "deleted"?: "Deleted by"
        case "created"?: "Created by"
        default: "Changed by"
        }
        var fields: [JSONValue] = [
            field("Listing", event.listing ?? "none"),
            field("Priority", event.priority),
            field("Due", event.dueDate.map(Self.day) ?? "no due date"),
            field(who, event.actor),
        ]
        if let claimer = event.claimedBy, event.type.hasSuffix(".created") || event.type.hasSuffix(".status_changed") {
            fields.append(field("Claimed by", claimer))
        }
        let blocks: [JSONValue] = [
            ["type": "header", "text": ["type": "plain_text", "text": .string(clamp("\(verb): \(event.title)", headerMaximum)),
                                        "emoji": true]],
            ["type": "section", "fields": .array(fields)],
            ["type": "context", "elements": [["type": "mrkdwn",
                                              "text": .string(clamp("via Dispatch · \(escape(event.type)) · status \(escape(event.status))",
                                                                    textMaximum))]]],
            ["type": "actions", "elements": [[
                "type": "button", "text": ["type": "plain_text", "text": .string(clamp("Open in Dispatch", buttonLabelMaximum))],
                "url": .string(String(link.prefix(urlMaximum))), "action_id": "open_task",
            ]]],
        ]
        return ["text": .string(clamp("\(verb): \(event.title)", textMaximum)), "blocks": .array(blocks)]
    }

    package static func headline(_ type: String, noun: String) -> String {
        switch type.split(separator: ".").last {
        case "created"?: "New \(noun)"
        case "claimed"?: "Claimed \(noun)"
        case "released"?: "Released \(noun)"
        case "completed"?: "Completed \(noun)"
        case "deleted"?: "Deleted \(noun)"
        default: "Updated \(noun)"
        }
    }

    static func field(_ label: String, _ value: String) -> JSONValue {
        ["type": "mrkdwn", "text": .string(clamp("*\(label)*\n\(escape(value))", fieldMaximum))]
    }

    /// Slack's mrkdwn reads `<…>` as links and mentions and `&` as an entity: user text must
    /// not ping a channel or forge a link.
    package static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// At most `maximum` characters, an ellipsis marking a cut.
    package static func clamp(_ text: String, _ maximum: Int) -> String {
        text.count <= maximum ? text : String(text.prefix(maximum - 1)) + "…"
    }

    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }

    package static func encode(_ value: JSONValue) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}
