import Foundation

/// The NOTIFY payload of a cross-instance broadcast (`BroadcastBus`), a JSON object:
/// `i` the publishing instance, `t` the broadcast room (`BroadcastHub`), and either `j` (a text broadcast's JSON) or
/// `e`, `c`, `p` (a binary user broadcast: event, encoding byte, payload in base64); or,
/// for a stored message, only `i` and `r` (its `realtime_broadcasts` id).
enum BroadcastWire {
    static func encode(_ content: BroadcastContent, topic: String, instance: String) -> String {
        var object: [String: Any] = ["i": instance, "t": topic]
        switch content {
        case .json(let text):
            object["j"] = text
        case .user(let user):
            object["e"] = user.event
            object["c"] = Int(user.encoding.rawValue)
            object["p"] = Data(user.payload).base64EncodedString()
        }
        // Strings, integers and a dictionary of them always serialize.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// One decoded payload; nil fields where the payload lacks them.
    struct Envelope {
        let instance: String
        let topic: String?
        let storedID: Int64?
        let content: BroadcastContent?

        /// Nil when `text` is not a payload this server wrote.
        init?(_ text: String) {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                  let instance = object["i"] as? String else { return nil }
            self.instance = instance
            topic = object["t"] as? String
            storedID = (object["r"] as? NSNumber)?.int64Value
            if let json = object["j"] as? String {
                content = .json(json)
            } else if let event = object["e"] as? String, let code = (object["c"] as? NSNumber)?.uint8Value,
                      let encoding = UserBroadcast.Encoding(rawValue: code),
                      let base64 = object["p"] as? String, let payload = Data(base64Encoded: base64) {
                content = .user(UserBroadcast(event: event, encoding: encoding, payload: Array(payload)))
            } else {
                content = nil
            }
        }
    }
}
