import Foundation

/// The client side of vsn 2.0.0's binary broadcasts, written from supabase-swift's
/// `Sources/RealtimeV2/RealtimeSerializer.swift` (`encodeBroadcastPush`, `decodeBinary`) for
/// tests: what an official client sends, and how it reads what the server sends back.
enum PhoenixBinaryClient {
    /// Kind 3, user broadcast push: absent refs as empty fields, no metadata (as the clients
    /// send it unless realtime-js has `persist` to pass).
    static func userBroadcastPush(joinRef: String?, ref: String?, topic: String, event: String,
                                  json: Bool, payload: [UInt8], metadata: String = "") -> [UInt8] {
        let fields = [Array((joinRef ?? "").utf8), Array((ref ?? "").utf8), Array(topic.utf8), Array(event.utf8), Array(metadata.utf8)]
        return [3] + fields.map { UInt8($0.count) } + [json ? 1 : 0] + fields.joined() + payload
    }

    static func userBroadcastPush(joinRef: String?, ref: String?, topic: String, event: String, object: [String: Any]) throws -> [UInt8] {
        userBroadcastPush(joinRef: joinRef, ref: ref, topic: topic, event: event, json: true,
                          payload: Array(try JSONSerialization.data(withJSONObject: object)))
    }

    /// A kind 4 message as supabase-swift's `decodeBinary` reads it.
    struct Received: Equatable {
        var topic: String
        var event: String
        var json: Bool
        var payload: [UInt8]
        var object: [String: Any]? {
            json ? (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] : nil
        }

        static func == (left: Received, right: Received) -> Bool {
            (left.topic, left.event, left.json, left.payload) == (right.topic, right.event, right.json, right.payload)
        }
    }

    enum DecodeError: Error { case tooShort, kind(UInt8), encoding(UInt8), lengths, utf8, notAnObject }

    static func decode(_ bytes: [UInt8]) throws -> Received {
        guard bytes.count >= 5 else { throw DecodeError.tooShort }
        guard bytes[0] == 4 else { throw DecodeError.kind(bytes[0]) }
        let topicLength = Int(bytes[1]), eventLength = Int(bytes[2]), metaLength = Int(bytes[3])
        guard bytes[4] <= 1 else { throw DecodeError.encoding(bytes[4]) }
        guard bytes.count >= 5 + topicLength + eventLength + metaLength else { throw DecodeError.lengths }
        let topicEnd = 5 + topicLength, eventEnd = topicEnd + eventLength
        guard let topic = String(validating: bytes[5..<topicEnd], as: UTF8.self),
              let event = String(validating: bytes[topicEnd..<eventEnd], as: UTF8.self) else { throw DecodeError.utf8 }
        let received = Received(topic: topic, event: event, json: bytes[4] == 1, payload: Array(bytes[(eventEnd + metaLength)...]))
        // supabase-swift decodes a JSON payload as an object, or drops the message.
        if received.json && received.object == nil { throw DecodeError.notAnObject }
        return received
    }
}
