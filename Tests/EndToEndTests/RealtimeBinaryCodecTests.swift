@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Foundation
import Testing

/// vsn 2.0.0's binary messages byte for byte, without sockets or a database. The fixtures are
/// the official ones: supabase/realtime `test/realtime_web/socket/v2_serializer_test.exs`
/// (the server's serializer: `@client_*` pushes it decodes, `@*_user_broadcast_no_metadata`
/// it sends) and supabase-js `packages/core/realtime-js/test/serializer.test.ts` (the pushes
/// realtime-js encodes, the user broadcasts it decodes).
@Suite struct RealtimeBinaryCodecTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    // MARK: What clients send (kind 3, kind 0)

    /// v2_serializer_test.exs `@client_binary_user_broadcast_push`, `@client_json_user_broadcast_push`,
    /// `@client_binary_user_broadcast_push_with_metadata`.
    @Test func theServersClientPushFixturesDecode() throws {
        let binary: [UInt8] = [3, 2, 3, 5, 10, 0, 0] + Self.bytes("12123topicuser_event") + [101, 102, 103]
        #expect(try PhoenixBinaryCodec.decode(binary) == .init(
            joinRef: "12", ref: "123", topic: "topic",
            body: .userBroadcast(.init(event: "user_event", encoding: .binary, payload: [101, 102, 103]))))
        let json: [UInt8] = [3, 2, 3, 5, 10, 0, 1] + Self.bytes("12123topicuser_event") + [123, 34, 97, 34, 58, 34, 98, 34, 125]
        #expect(try PhoenixBinaryCodec.decode(json) == .init(
            joinRef: "12", ref: "123", topic: "topic",
            body: .userBroadcast(.init(event: "user_event", encoding: .json, payload: Self.bytes(#"{"a":"b"}"#)))))
        let withMetadata: [UInt8] = [3, 2, 3, 5, 10, 14, 0] + Self.bytes(#"12123topicuser_event{"store":true}"#) + [101, 102, 103]
        #expect(try PhoenixBinaryCodec.decode(withMetadata).body == .userBroadcast(.init(event: "user_event", encoding: .binary,
                                                                                        payload: [101, 102, 103])))
    }

    /// v2_serializer_test.exs `@client_push`: Phoenix's generic binary push decodes (and is
    /// then refused by the channel layer: no event takes a binary payload).
    @Test func theServersGenericPushFixtureDecodes() throws {
        let push: [UInt8] = [0, 2, 3, 5, 5] + Self.bytes("12123topicevent") + [101, 102, 103]
        #expect(try PhoenixBinaryCodec.decode(push) == .init(joinRef: "12", ref: "123", topic: "topic",
                                                              body: .event("event", payload: [101, 102, 103])))
    }

    /// serializer.test.ts "encodes user broadcast push with JSON payload no metadata / with
    /// Binary payload no refs / forwards persist as metadata by default".
    @Test func realtimeJSPushFixturesDecode() throws {
        let json = Self.bytes("\u{03}\u{02}\u{01}\u{03}\u{0a}\u{00}\u{01}101topuser-event{\"a\":\"b\"}")
        #expect(try PhoenixBinaryCodec.decode(json) == .init(
            joinRef: "10", ref: "1", topic: "top",
            body: .userBroadcast(.init(event: "user-event", encoding: .json, payload: Self.bytes(#"{"a":"b"}"#)))))
        let noRefs = Self.bytes("\u{03}\u{00}\u{00}\u{03}\u{0a}\u{00}\u{00}topuser-event\u{01}\u{04}")
        #expect(try PhoenixBinaryCodec.decode(noRefs) == .init(
            joinRef: nil, ref: nil, topic: "top", body: .userBroadcast(.init(event: "user-event", encoding: .binary, payload: [1, 4]))))
        let persist = Self.bytes("\u{03}\u{02}\u{01}\u{03}\u{0a}\u{10}\u{01}101topuser-event{\"persist\":true}{\"a\":\"b\"}")
        #expect(try PhoenixBinaryCodec.decode(persist).body == .userBroadcast(.init(event: "user-event", encoding: .json,
                                                                                   payload: Self.bytes(#"{"a":"b"}"#))))
    }

    // MARK: What the server sends (kind 4)

    /// v2_serializer_test.exs `@json_user_broadcast_no_metadata`, `@binary_user_broadcast_no_metadata`
    /// (Supabase relays a client's user broadcast without metadata).
    @Test func userBroadcastsAreEncodedAsTheServerEncodesThem() {
        let json = PhoenixBinaryCodec.userBroadcast(topic: "topic", .init(event: "user_event", encoding: .json, payload: Self.bytes(#"{"a":"b"}"#)))
        #expect(json == [4, 5, 10, 0, 1] + Self.bytes("topicuser_event") + [123, 34, 97, 34, 58, 34, 98, 34, 125])
        let binary = PhoenixBinaryCodec.userBroadcast(topic: "topic", .init(event: "user_event", encoding: .binary, payload: [101, 102, 103]))
        #expect(binary == [4, 5, 10, 0, 0] + Self.bytes("topicuser_event") + [101, 102, 103])
        // serializer.test.ts "decodes user broadcast with JSON payload and no metadata".
        let realtimeJS = PhoenixBinaryCodec.userBroadcast(topic: "top", .init(event: "user-event", encoding: .json, payload: Self.bytes(#"{"a":"b"}"#)))
        #expect(realtimeJS == Self.bytes("\u{04}\u{03}\u{0a}\u{00}\u{01}topuser-event{\"a\":\"b\"}"))
    }

    @Test func fieldsPastTwoHundredFiftyFiveBytesCannotBeEncoded() {
        let long = String(repeating: "t", count: 256)
        #expect(PhoenixBinaryCodec.userBroadcast(topic: long, .init(event: "e", encoding: .binary, payload: [])) == nil)
        #expect(PhoenixBinaryCodec.userBroadcast(topic: "t", .init(event: long, encoding: .binary, payload: [])) == nil)
        #expect(PhoenixBinaryCodec.userBroadcast(topic: String(long.dropFirst()), .init(event: "e", encoding: .binary, payload: [])) != nil)
    }

    /// supabase-swift's encoder → our decoder → our encoder → supabase-swift's decoder: what
    /// the sender meant is what the member reads (multi-byte UTF-8, empty and 255-byte fields).
    @Test(arguments: [
        ("realtime:room", "typing", true, #"{"who":"rita","n":[1,2.5,null]}"#),
        ("realtime:café-🎉", "café-🎉", true, #"{"é":"🎉"}"#),
        ("realtime:" + String(repeating: "r", count: 246), String(repeating: "e", count: 255), false, "\u{0}\u{1}\u{FF}"),
        ("realtime:room", "empty", false, ""),
        ("realtime:room", "empty-object", true, "{}"),
    ])
    func aPushRoundTripsToWhatTheMemberReads(topic: String, event: String, json: Bool, payload: String) throws {
        let payloadBytes = json ? Self.bytes(payload) : payload.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        let sent = PhoenixBinaryClient.userBroadcastPush(joinRef: "3", ref: "9", topic: topic, event: event, json: json, payload: payloadBytes)
        let push = try PhoenixBinaryCodec.decode(sent)
        #expect(push.joinRef == "3" && push.ref == "9" && push.topic == topic)
        guard case .userBroadcast(let user) = push.body else {
            Issue.record("not a user broadcast: \(push.body)")
            return
        }
        let relayed = try #require(PhoenixBinaryCodec.userBroadcast(topic: topic, user))
        #expect(try PhoenixBinaryClient.decode(relayed) == .init(topic: topic, event: event, json: json, payload: payloadBytes))
    }

    // MARK: Malformed input

    @Test(arguments: [
        ([UInt8](), "truncated: empty message"),
        ([3, 0, 0, 1], "truncated: the header is 7 bytes, the message 4"),
        ([3, 0, 0, 5, 1, 0, 1] + Array("top".utf8), "truncated: the header announces 6 bytes of fields, 3 follow it"),
        ([0, 1, 1, 1], "truncated: the header is 5 bytes, the message 4"),
        ([0, 0, 0, 9, 1] + Array("topic".utf8), "truncated: the header announces 10 bytes of fields, 5 follow it"),
        ([9, 0, 0, 0, 0, 0, 1], "unknown kind 9 (clients send 0 push or 3 user broadcast push)"),
        ([0xFF], "unknown kind 255 (clients send 0 push or 3 user broadcast push)"),
        ([1, 0, 0, 0, 0], "kind 1 is sent by the server only"),
        ([2, 1, 1] + Array("te".utf8), "kind 2 is sent by the server only"),
        ([4, 1, 1, 0, 1] + Array("te{}".utf8), "kind 4 is sent by the server only"),
        ([3, 0, 0, 1, 1, 0, 2] + Array("te".utf8), "unknown payload encoding 2 (0 binary, 1 JSON)"),
        ([3, 0, 0, 2, 1, 0, 1, 0xC3, 0x28, 0x65], "topic is not UTF-8"),
        ([3, 1, 0, 1, 1, 0, 1, 0xFF, 0x74, 0x65], "join_ref is not UTF-8"),
        ([3, 0, 0, 1, 1, 2, 0, 0x74, 0x65, 0x5B, 0x5D], "metadata must be empty or a JSON object"),
        ([3, 0, 0, 1, 1, 1, 0, 0x74, 0x65, 0x7B], "metadata must be empty or a JSON object"),
    ] as [([UInt8], String)])
    func malformedMessagesAreRefusedWithAReason(bytes: [UInt8], reason: String) {
        #expect(throws: PhoenixBinaryCodec.DecodeError.self) { try PhoenixBinaryCodec.decode(bytes) }
        do {
            _ = try PhoenixBinaryCodec.decode(bytes)
        } catch {
            #expect(error.reason == reason)
        }
    }

    /// Every cut of a valid push: too short for its fields is `truncated`, never a crash;
    /// from there on the rest is payload.
    @Test func everyPrefixOfAPushIsTruncatedOrDecodes() throws {
        let push = PhoenixBinaryClient.userBroadcastPush(joinRef: "1", ref: "22", topic: "realtime:é", event: "ev",
                                                         json: false, payload: [7, 8, 9], metadata: #"{"m":1}"#)
        let fieldsEnd = push.count - 3
        for length in 0...push.count {
            let prefix = Array(push.prefix(length))
            if length < fieldsEnd {
                #expect(throws: PhoenixBinaryCodec.DecodeError.self, "length \(length)") { try PhoenixBinaryCodec.decode(prefix) }
            } else {
                let decoded = try PhoenixBinaryCodec.decode(prefix)
                #expect(decoded.body == .userBroadcast(.init(event: "ev", encoding: .binary, payload: Array(push[fieldsEnd..<length]))))
            }
        }
    }

    // MARK: Per vsn

    @Test func eachVersionSendsAUserBroadcastTheWaySupabaseDoes() throws {
        let json = UserBroadcast(event: "typing", encoding: .json, payload: Self.bytes(#"{"who":"rita"}"#))
        let message = PhoenixOutbound.broadcast(topic: "realtime:room", .user(json))
        // 2.0.0: binary kind 4.
        guard case .binary(let bytes)? = PhoenixSerializer.v2.frame(message) else {
            Issue.record("vsn 2.0.0 should send binary")
            return
        }
        #expect(try PhoenixBinaryClient.decode(bytes).object?["who"] as? String == "rita")
        // 1.0.0: the text broadcast's shape, `payload.payload` the user's object.
        guard case .text(let text)? = PhoenixSerializer.v1.frame(message) else {
            Issue.record("vsn 1.0.0 should send text")
            return
        }
        let object = try #require(RealtimeProtocolTests.object(text))
        #expect(object["event"] as? String == "broadcast" && object["topic"] as? String == "realtime:room" && object["ref"] is NSNull)
        let payload = try #require(object["payload"] as? [String: Any])
        #expect(payload["type"] as? String == "broadcast" && payload["event"] as? String == "typing")
        #expect((payload["payload"] as? [String: String]) == ["who": "rita"])
        // A binary user payload: 1.0.0 has no way to carry it (Supabase drops it too).
        let binary = PhoenixOutbound.broadcast(topic: "realtime:room", .user(.init(event: "blob", encoding: .binary, payload: [0xFF])))
        #expect(PhoenixSerializer.v1.frame(binary) == nil)
        #expect(PhoenixSerializer.v2.frame(binary) == .binary([4, 13, 4, 0, 0] + Self.bytes("realtime:roomblob") + [0xFF]))
        // Everything else is text in both versions, as before.
        let reply = PhoenixOutbound(joinRef: "1", ref: "2", topic: "phoenix", event: "phx_reply", payload: "{}")
        #expect(PhoenixSerializer.v2.frame(reply) == .text(PhoenixSerializer.v2.encode(reply)))
        #expect(PhoenixSerializer.v2.frame(.broadcast(topic: "t", .json(#"{"event":"e"}"#))) == .text(#"[null,null,"t","broadcast",{"event":"e"}]"#))
    }
}
