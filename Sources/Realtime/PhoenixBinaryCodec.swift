/// Binary WebSocket messages of the Phoenix protocol vsn 2.0.0 as Supabase Realtime extends
/// it (text messages stay JSON arrays, `PhoenixSerializer`). Sources, read for this:
/// supabase/realtime `lib/realtime_web/socket/v2_serializer.ex` (the server; its tests in
/// `test/realtime_web/socket/v2_serializer_test.exs`), supabase-swift
/// `Sources/RealtimeV2/RealtimeSerializer.swift` and supabase-js
/// `packages/core/realtime-js/src/lib/serializer.ts` (the clients).
///
/// Every message starts with a kind byte, then one length byte per variable field (so each
/// field is at most 255 bytes), then the fields back to back, then the payload: the rest of
/// the message, whose length is implied.
///
/// | kind | direction       | header bytes after the kind                                    | fields, then payload |
/// |------|-----------------|----------------------------------------------------------------|----------------------|
/// | 0 push            | client → server | join_ref, ref, topic, event lengths (Phoenix's) | join_ref ref topic event, payload |
/// | 0 push            | server → client | join_ref, topic, event lengths                  | join_ref topic event, payload |
/// | 1 reply           | server → client | join_ref, ref, topic, status lengths            | join_ref ref topic status, payload |
/// | 2 broadcast       | server → client | topic, event lengths                            | topic event, payload |
/// | 3 user broadcast push | client → server | join_ref, ref, topic, user_event, metadata lengths, then the encoding byte | join_ref ref topic user_event metadata, user payload |
/// | 4 user broadcast  | server → client | topic, user_event, metadata lengths, then the encoding byte | topic user_event metadata, user payload |
///
/// The encoding byte is 0 for a binary user payload, 1 for JSON (UTF-8 text of an object).
/// Metadata is empty or a JSON object (realtime-js puts `persist` there); Supabase decodes it
/// and does not relay it, and neither do we. Clients send absent refs as empty fields.
///
/// Example (realtime-js's serializer test): the push of `user-event` with `{"a":"b"}` on
/// topic `top`, join_ref `10`, ref `1` is `03 02 01 03 0a 00 01 "101topuser-event{"a":"b"}"`,
/// and what members receive is `04 03 0a 00 01 "topuser-event{"a":"b"}"`.
///
/// What this server does with them: kind 3 is a broadcast (`RealtimeConnection+Broadcast`);
/// kind 0 from a client decodes but is answered with an error (Supabase has no event that
/// takes a binary payload); kinds 1, 2 and 4 are the server's own and a client sending one is
/// malformed, like any other kind. The server sends kind 4 only: replies and JSON broadcasts
/// stay text, as Supabase sends them.
enum PhoenixBinaryCodec {
    enum Kind: UInt8 {
        case push = 0
        case reply = 1
        case broadcast = 2
        case userBroadcastPush = 3
        case userBroadcast = 4
    }

    /// A message a client sent in binary.
    struct Push: Sendable, Equatable {
        enum Body: Sendable, Equatable {
            /// Kind 3.
            case userBroadcast(UserBroadcast)
            /// Kind 0: an event with a binary payload.
            case event(String, payload: [UInt8])
        }

        var joinRef: String?
        var ref: String?
        var topic: String
        var body: Body
    }

    enum DecodeError: Error, Equatable {
        /// The message ends before the fields its header announces.
        case truncated(String)
        case unknownKind(UInt8)
        /// Kinds 1, 2 and 4: only the server sends them.
        case serverKind(UInt8)
        case notUTF8(String)
        case unknownEncoding(UInt8)
        case invalidMetadata

        var reason: String {
            switch self {
            case .truncated(let detail): "truncated: \(detail)"
            case .unknownKind(let kind): "unknown kind \(kind) (clients send 0 push or 3 user broadcast push)"
            case .serverKind(let kind): "kind \(kind) is sent by the server only"
            case .notUTF8(let field): "\(field) is not UTF-8"
            case .unknownEncoding(let byte): "unknown payload encoding \(byte) (0 binary, 1 JSON)"
            case .invalidMetadata: "metadata must be empty or a JSON object"
            }
        }
    }

    static func decode(_ bytes: [UInt8]) throws(DecodeError) -> Push {
        guard let first = bytes.first else { throw .truncated("empty message") }
        switch Kind(rawValue: first) {
        case .push?: return try decodePush(bytes)
        case .userBroadcastPush?: return try decodeUserBroadcastPush(bytes)
        case .reply?, .broadcast?, .userBroadcast?: throw .serverKind(first)
        case nil: throw .unknownKind(first)
        }
    }

    /// Kind 4 for a member of `topic`; nil when the topic or event passes 255 bytes (never for
    /// a broadcast that arrived as kind 3 on a joined topic: both came in one-byte lengths).
    static func userBroadcast(topic: String, _ broadcast: UserBroadcast) -> [UInt8]? {
        let topicBytes = Array(topic.utf8), eventBytes = Array(broadcast.event.utf8)
        guard topicBytes.count <= 255, eventBytes.count <= 255 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(5 + topicBytes.count + eventBytes.count + broadcast.payload.count)
        out += [Kind.userBroadcast.rawValue, UInt8(topicBytes.count), UInt8(eventBytes.count), 0, broadcast.encoding.rawValue]
        out += topicBytes
        out += eventBytes
        out += broadcast.payload
        return out
    }

    // MARK: Kinds

    private static func decodePush(_ bytes: [UInt8]) throws(DecodeError) -> Push {
        var reader = Reader(bytes: bytes, header: 5)
        let lengths = try reader.lengths(4)
        let joinRef = try reader.string(lengths[0], "join_ref"), ref = try reader.string(lengths[1], "ref")
        let topic = try reader.string(lengths[2], "topic"), event = try reader.string(lengths[3], "event")
        return Push(joinRef: joinRef.nonEmpty, ref: ref.nonEmpty, topic: topic,
                    body: .event(event, payload: reader.rest))
    }

    private static func decodeUserBroadcastPush(_ bytes: [UInt8]) throws(DecodeError) -> Push {
        var reader = Reader(bytes: bytes, header: 7)
        let lengths = try reader.lengths(5)
        let encodingByte = bytes[6]
        guard let encoding = UserBroadcast.Encoding(rawValue: encodingByte) else { throw .unknownEncoding(encodingByte) }
        let joinRef = try reader.string(lengths[0], "join_ref"), ref = try reader.string(lengths[1], "ref")
        let topic = try reader.string(lengths[2], "topic"), event = try reader.string(lengths[3], "user_event")
        let metadata = try reader.string(lengths[4], "metadata")
        if !metadata.isEmpty, JSONText.object(metadata) == nil { throw .invalidMetadata }
        let broadcast = UserBroadcast(event: event, encoding: encoding, payload: reader.rest)
        return Push(joinRef: joinRef.nonEmpty, ref: ref.nonEmpty, topic: topic, body: .userBroadcast(broadcast))
    }

    /// Reads a header's length bytes, then the fields they announce, in order.
    private struct Reader {
        let bytes: [UInt8]
        let header: Int
        var offset: Int

        init(bytes: [UInt8], header: Int) {
            self.bytes = bytes
            self.header = header
            offset = header
        }

        /// The `count` length bytes after the kind; checks that the fields they announce fit.
        func lengths(_ count: Int) throws(DecodeError) -> [Int] {
            guard bytes.count >= header else {
                throw .truncated("the header is \(header) bytes, the message \(bytes.count)")
            }
            let lengths = bytes[1...count].map(Int.init)
            let fields = lengths.reduce(0, +)
            guard bytes.count >= header + fields else {
                throw .truncated("the header announces \(fields) bytes of fields, \(bytes.count - header) follow it")
            }
            return lengths
        }

        mutating func string(_ length: Int, _ field: String) throws(DecodeError) -> String {
            let slice = bytes[offset..<(offset + length)]
            offset += length
            guard let text = String(validating: slice, as: UTF8.self) else { throw .notUTF8(field) }
            return text
        }

        var rest: [UInt8] { Array(bytes[offset...]) }
    }
}

private extension String {
    /// Clients write an absent ref as an empty field.
    var nonEmpty: String? { isEmpty ? nil : self }
}
