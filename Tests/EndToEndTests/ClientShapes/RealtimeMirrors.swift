import Foundation
import HTTPServer
import JSON

/// supabase-swift 2.55.1's Realtime types (`Sources/RealtimeV2`).
enum RealtimeMirrors {
    /// `RealtimeMessageV2` (`RealtimeMessageV2.swift`). vsn 1.0.0 frames are decoded as this
    /// object with a plain `JSONDecoder()` (`RealtimeClientV2`); vsn 2.0.0 frames are
    /// `[join_ref, ref, topic, event, payload]` (`RealtimeSerializer.decodeText`: topic and
    /// event strings, payload an object, else the frame is refused).
    struct Message: Decodable {
        let joinRef: String?
        let ref: String?
        let topic: String
        let event: String
        let payload: [String: JSONValue]

        enum CodingKeys: String, CodingKey {
            case joinRef = "join_ref"
            case ref, topic, event, payload
        }

        init(joinRef: String?, ref: String?, topic: String, event: String, payload: [String: JSONValue]) {
            self.joinRef = joinRef
            self.ref = ref
            self.topic = topic
            self.event = event
            self.payload = payload
        }

        static func decode(_ text: String, vsn: String) throws -> Message {
            let data = Data(text.utf8)
            guard vsn == "2.0.0" else { return try JSONDecoder().decode(Message.self, from: data) }
            let array = try JSONDecoder().decode([JSONValue].self, from: data)
            guard array.count >= 5, case .string(let topic) = array[2], case .string(let event) = array[3],
                  case .object(let payload) = array[4] else { throw MirrorError.refused(text) }
            return Message(joinRef: array[0].string, ref: array[1].string, topic: topic, event: event, payload: payload)
        }

        /// `status` (`payload["status"]` as `PushStatus`: ok, error, timeout).
        var status: String? { payload["status"]?.string }
    }

    /// `PostgresActionData` (`PostgresActionData.swift`): a `postgres_changes` message's
    /// `payload.data`, decoded with `AnyJSON.decoder` (`JSONDecoder.supabase()`).
    struct PostgresActionData: Decodable {
        var type: String
        var record: [String: JSONValue]?
        var oldRecord: [String: JSONValue]?
        var columns: [Column]
        var commitTimestamp: Date

        enum CodingKeys: String, CodingKey {
            case type, record, columns
            case oldRecord = "old_record"
            case commitTimestamp = "commit_timestamp"
        }
    }

    /// `Column` (`PostgresAction.swift`).
    struct Column: Decodable {
        let name: String
        let type: String
    }

    /// `PostgresJoinConfig` (`RealtimeJoinConfig.swift`): the join reply's
    /// `response.postgres_changes` entries. Its synthesized `Decodable` requires `id` (the
    /// default value does not make the key optional).
    struct PostgresJoinConfig: Decodable {
        enum Event: String, Decodable {
            case insert = "INSERT", update = "UPDATE", delete = "DELETE", all = "*"
        }

        var event: Event?
        var schema: String
        var table: String?
        var filter: String?
        var select: [String]?
        var id: Int
    }

    enum MirrorError: Error { case refused(String) }
}

extension JSONValue {
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var object: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The value re-encoded, for decoding a part of a message as a mirror type (as the client
    /// does with `AnyJSON.decode(as:)`); whole numbers are written as integers, as `AnyJSON`
    /// keeps them.
    func decode<T: Decodable>(as type: T.Type, with decoder: JSONDecoder = SupabaseSwiftDecoding.supabase()) throws -> T {
        try decoder.decode(type, from: Data(jsonText.utf8))
    }

    var jsonText: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let text):
            let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)
        case .array(let items): return "[" + items.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { JSONValue.string($0.key).jsonText + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }
}
