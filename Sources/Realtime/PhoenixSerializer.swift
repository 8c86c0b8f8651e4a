import Foundation
import HTTPServer
import JSON

/// The two wire formats of Phoenix channel messages, chosen by the socket's `vsn` query
/// parameter: 1.0.0 sends objects `{"join_ref","ref","topic","event","payload"}` (the Python
/// client's), 2.0.0 arrays `[join_ref, ref, topic, event, payload]` (supabase-swift's and
/// supabase-js's default). Binary frames of 2.0.0 (supabase-swift's broadcast pushes) are
/// `PhoenixBinaryCodec`'s; see docs/app-developers/realtime.md.
enum PhoenixSerializer: String, Sendable {
    case v1 = "1.0.0"
    case v2 = "2.0.0"

    /// Phoenix's default when the client names none is 1.0.0.
    init?(vsn: String?) {
        guard let vsn else { self = .v1; return }
        self.init(rawValue: vsn)
    }

    enum DecodeError: Error, Equatable {
        case notJSON
        case shape(String)
    }

    func decode(_ text: String) throws(DecodeError) -> PhoenixMessage {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { throw .notJSON }
        let joinRef, ref, topic, event, payload: JSONValue?
        switch (self, value) {
        case (.v1, .object(let object)):
            (joinRef, ref, topic, event, payload) = (object["join_ref"], object["ref"], object["topic"], object["event"], object["payload"])
        case (.v2, .array(let array)):
            guard array.count == 5 else { throw .shape("a message is an array of 5 elements: [join_ref, ref, topic, event, payload]") }
            (joinRef, ref, topic, event, payload) = (array[0], array[1], array[2], array[3], array[4])
        case (.v1, _):
            throw .shape("a message is an object with join_ref, ref, topic, event and payload (vsn 1.0.0)")
        case (.v2, _):
            throw .shape("a message is an array [join_ref, ref, topic, event, payload] (vsn 2.0.0)")
        }
        guard case .string(let topicText)? = topic, !topicText.isEmpty else { throw .shape("topic must be a non-empty string") }
        guard case .string(let eventText)? = event, !eventText.isEmpty else { throw .shape("event must be a non-empty string") }
        guard case .object(let body)? = payload else { throw .shape("payload must be an object") }
        return PhoenixMessage(joinRef: try Self.reference(joinRef, "join_ref"), ref: try Self.reference(ref, "ref"),
                              topic: topicText, event: eventText, payload: body)
    }

    /// References are strings; some clients send integers, which Phoenix echoes as given.
    private static func reference(_ value: JSONValue?, _ name: String) throws(DecodeError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .number(let number)? where number.rounded() == number && abs(number) < 1e15: return String(Int64(number))
        default: throw .shape("\(name) must be a string or null")
        }
    }

    /// One encoded message for the WebSocket.
    enum Frame: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// `message` as this version sends it: text, except a binary-pushed broadcast to a 2.0.0
    /// client (binary user broadcast); nil when this version cannot carry it (a binary user
    /// payload to 1.0.0).
    func frame(_ message: PhoenixOutbound) -> Frame? {
        guard let user = message.userBroadcast else { return .text(encode(message)) }
        switch self {
        case .v1:
            return user.encoding == .json ? .text(encode(message)) : nil
        case .v2:
            return PhoenixBinaryCodec.userBroadcast(topic: message.topic, user).map(Frame.binary)
        }
    }

    /// The text form of `message` (for a user broadcast, its JSON envelope in `payload`).
    func encode(_ message: PhoenixOutbound) -> String {
        let joinRef = JSONText.quoted(message.joinRef), ref = JSONText.quoted(message.ref)
        let topic = JSONText.quoted(message.topic), event = JSONText.quoted(message.event)
        switch self {
        case .v1:
            return #"{"join_ref":\#(joinRef),"ref":\#(ref),"topic":\#(topic),"event":\#(event),"payload":\#(message.payload)}"#
        case .v2:
            return "[\(joinRef),\(ref),\(topic),\(event),\(message.payload)]"
        }
    }
}
