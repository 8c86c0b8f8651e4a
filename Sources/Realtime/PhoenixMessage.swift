import HTTPServer
import JSON

/// One Phoenix channel message as a client sent it; both serializers decode to this.
struct PhoenixMessage: Sendable, Equatable {
    var joinRef: String?
    var ref: String?
    var topic: String
    var event: String
    /// Always a JSON object (the serializer refuses anything else).
    var payload: [String: JSONValue]
}

/// One message the server sends. The payload is JSON text already: row JSON from the
/// database is spliced in, never decoded and re-encoded.
struct PhoenixOutbound: Sendable, Equatable {
    var joinRef: String?
    var ref: String?
    var topic: String
    var event: String
    var payload: String
    /// Set on a broadcast a client pushed in binary: vsn 2.0.0 sends it as a binary user
    /// broadcast, vsn 1.0.0 as text with `payload` (its JSON envelope) or not at all when the
    /// user payload is binary (`payload` is then empty). See `UserBroadcast`.
    var userBroadcast: UserBroadcast? = nil

    static let heartbeatTopic = "phoenix"

    /// `phx_reply` to the message `ref` (status `ok` or `error`, `response` a JSON object).
    static func reply(to message: PhoenixMessage, ok: Bool, response: String = "{}") -> PhoenixOutbound {
        PhoenixOutbound(joinRef: message.joinRef, ref: message.ref, topic: message.topic, event: "phx_reply",
                        payload: #"{"status":"\#(ok ? "ok" : "error")","response":\#(response)}"#)
    }

    /// An error reply whose response is `{"reason": …}`, as Phoenix and Supabase answer.
    static func error(to message: PhoenixMessage, reason: String) -> PhoenixOutbound {
        reply(to: message, ok: false, response: #"{"reason":\#(JSONText.quoted(reason))}"#)
    }

    /// A `system` message of a joined channel (`channel` is the topic without `realtime:`).
    static func system(topic: String, joinRef: String?, extension name: String, ok: Bool, message: String) -> PhoenixOutbound {
        let channel = topic.hasPrefix(RealtimeTopic.prefix) ? String(topic.dropFirst(RealtimeTopic.prefix.count)) : topic
        return PhoenixOutbound(joinRef: joinRef, ref: nil, topic: topic, event: "system", payload: """
            {"channel":\(JSONText.quoted(channel)),"extension":\(JSONText.quoted(name)),\
            "message":\(JSONText.quoted(message)),"status":"\(ok ? "ok" : "error")"}
            """)
    }

    /// A broadcast relayed to a member of `topic` (`BroadcastHub`).
    static func broadcast(topic: String, _ content: BroadcastContent) -> PhoenixOutbound {
        switch content {
        case .json(let text):
            return PhoenixOutbound(joinRef: nil, ref: nil, topic: topic, event: "broadcast", payload: text)
        case .user(let user):
            return PhoenixOutbound(joinRef: nil, ref: nil, topic: topic, event: "broadcast", payload: user.jsonEnvelope ?? "",
                                   userBroadcast: user)
        }
    }

    /// The end of a channel: Phoenix sends it after a leave or when the server stops the channel.
    static func close(topic: String, joinRef: String?) -> PhoenixOutbound {
        PhoenixOutbound(joinRef: joinRef, ref: joinRef, topic: topic, event: "phx_close", payload: "{}")
    }
}

/// Topic names clients join.
enum RealtimeTopic {
    static let prefix = "realtime:"
}
