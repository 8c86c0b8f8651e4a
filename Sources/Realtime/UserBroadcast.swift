/// A broadcast a client pushed as a binary frame (vsn 2.0.0, kind 3 "user broadcast push"):
/// the user's event name and payload, kept as the bytes the client sent. It goes to the
/// topic's other members as Supabase Realtime relays it (`PhoenixBinaryCodec`): a binary
/// "user broadcast" (kind 4) to vsn 2.0.0 members; to vsn 1.0.0 members as ordinary JSON
/// text when the payload is JSON, and not at all when it is binary (1.0.0 has no way to carry
/// bytes; Supabase drops it the same way).
struct UserBroadcast: Sendable, Equatable {
    /// The payload encoding byte of kinds 3 and 4.
    enum Encoding: UInt8, Sendable {
        case binary = 0
        case json = 1
    }

    var event: String
    var encoding: Encoding
    /// For `.json`: the UTF-8 text of one JSON object (checked on the way in, relayed as sent).
    var payload: [UInt8]

    /// The JSON form of the message's payload, for vsn 1.0.0 members:
    /// `{"type":"broadcast","event":…,"payload":…}`, the shape of a text broadcast; nil for a
    /// binary payload.
    var jsonEnvelope: String? {
        guard encoding == .json else { return nil }
        let payloadText = String(decoding: payload, as: UTF8.self)
        return #"{"type":"broadcast","event":\#(JSONText.quoted(event)),"payload":\#(payloadText)}"#
    }
}
