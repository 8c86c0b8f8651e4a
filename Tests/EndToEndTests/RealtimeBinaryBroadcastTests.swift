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

/// Broadcasts pushed in binary (vsn 2.0.0, how supabase-swift and supabase-js send them) through
/// the channel layer, in process: relay per member's vsn, self, ack, limits, and the refusals.
@Suite struct RealtimeBinaryBroadcastTests {
    static func push(_ client: RealtimeTestClient, joinRef: String?, ref: String? = nil, topic: String = "realtime:chat",
                     event: String = "typing", object: [String: Any] = ["who": "rita"]) throws -> String {
        let ref = ref ?? client.nextRef()
        client.raw(binary: try PhoenixBinaryClient.userBroadcastPush(joinRef: joinRef, ref: ref, topic: topic, event: event, object: object))
        return ref
    }

    @Test func aJSONBroadcastReachesVersion2MembersInBinaryAndVersion1MembersAsText() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let rita = try server.member("rita"), otto = try server.member("otto")
        let sender = try RealtimeTestClient(service, vsn: "2.0.0")
        let peer2 = try RealtimeTestClient(service, vsn: "2.0.0"), peer1 = try RealtimeTestClient(service, vsn: "1.0.0")
        let elsewhere = try RealtimeTestClient(service, vsn: "2.0.0")
        let join = try sender.join("chat", token: rita.token)
        try peer2.join("chat", token: otto.token)
        try peer1.join("chat", token: otto.token)
        try elsewhere.join("other", token: otto.token)
        _ = try Self.push(sender, joinRef: join.joinRef, object: ["who": "rita", "n": 2])
        let binary = try peer2.nextBinary()
        #expect(binary.topic == "realtime:chat" && binary.event == "typing" && binary.json)
        #expect(binary.object?["who"] as? String == "rita" && binary.object?["n"] as? Int == 2)
        let text = try peer1.next { $0.event == "broadcast" }
        #expect(text.topic == "realtime:chat" && text.ref == nil)
        #expect(text.payload["type"] as? String == "broadcast" && text.payload["event"] as? String == "typing")
        #expect((text.payload["payload"] as? [String: Any])?["who"] as? String == "rita")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(sender.receivedBinary.isEmpty && sender.received { $0.event == "phx_reply" }.isEmpty, "no echo, no ack by default")
        #expect(elsewhere.receivedBinary.isEmpty)
    }

    @Test func aBinaryPayloadReachesVersion2MembersOnly() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let sender = try RealtimeTestClient(service, vsn: "2.0.0")
        let peer2 = try RealtimeTestClient(service, vsn: "2.0.0"), peer1 = try RealtimeTestClient(service, vsn: "1.0.0")
        let join = try sender.join("chat", token: try server.member("rita").token)
        try peer2.join("chat", token: try server.member("otto").token)
        try peer1.join("chat", token: try server.member("olga").token)
        let bytes: [UInt8] = [0x00, 0xFF, 0xC0, 0xAF, 0x7B]
        sender.raw(binary: PhoenixBinaryClient.userBroadcastPush(joinRef: join.joinRef, ref: "5", topic: "realtime:chat",
                                                                 event: "blob", json: false, payload: bytes))
        #expect(try peer2.nextBinary() == .init(topic: "realtime:chat", event: "blob", json: false, payload: bytes))
        // A text broadcast after it: peer1 gets that one, so it would have had the first by now.
        try sender.push(topic: "realtime:chat", event: "broadcast", payload: RealtimeBroadcastTests.message("after"), joinRef: join.joinRef)
        #expect(try peer1.next { $0.event == "broadcast" }.payload["event"] as? String == "after")
        #expect(peer1.received { $0.event == "broadcast" }.isEmpty)
    }

    @Test func selfAndAckAreHonoured() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service, vsn: "2.0.0")
        let join = try client.join("chat", token: try server.member("rita").token, broadcast: ["self": true, "ack": true])
        let ref = try Self.push(client, joinRef: join.joinRef, event: "ping")
        let ack = try client.next { $0.ref == ref }
        #expect(ack.event == "phx_reply" && ack.status == "ok" && ack.topic == "realtime:chat" && ack.joinRef == join.joinRef)
        #expect(try client.nextBinary().event == "ping")
        // Without a ref there is nothing to acknowledge; the broadcast still goes out.
        client.raw(binary: try PhoenixBinaryClient.userBroadcastPush(joinRef: nil, ref: nil, topic: "realtime:chat", event: "quiet", object: [:]))
        #expect(try client.nextBinary().event == "quiet")
    }

    @Test func refusalsAreErrorRepliesToThePushsRef() throws {
        let server = try SyncTestServer()
        var limits = RealtimeLimits()
        limits.broadcastBytes = 64
        let service = RealtimeChannelTests.service(server, limits: limits)
        defer { service.stop() }
        let client = try RealtimeTestClient(service, vsn: "2.0.0"), peer = try RealtimeTestClient(service, vsn: "2.0.0")
        let join = try client.join("chat", token: try server.member("rita").token)
        try peer.join("chat", token: try server.member("otto").token)
        func reason(_ ref: String) throws -> String? {
            let reply = try client.next { $0.ref == ref }
            #expect(reply.status == "error")
            return reply.response?["reason"] as? String
        }
        let unjoined = try Self.push(client, joinRef: join.joinRef, topic: "realtime:elsewhere")
        #expect(try reason(unjoined) == "unmatched topic")
        let big = try Self.push(client, joinRef: join.joinRef, object: ["text": String(repeating: "x", count: 100)])
        #expect(try reason(big)?.hasPrefix("PayloadTooLarge") == true)
        let noEvent = try Self.push(client, joinRef: join.joinRef, event: "")
        #expect(try reason(noEvent)?.hasPrefix("InvalidBroadcast") == true)
        for (index, payload) in ["[1]", "\"text\"", "{\"a\":", "\u{FEFF}{}", "{} {}"].enumerated() {
            client.raw(binary: PhoenixBinaryClient.userBroadcastPush(joinRef: join.joinRef, ref: "j\(index)", topic: "realtime:chat",
                                                                     event: "e", json: true, payload: Array(payload.utf8)))
            #expect(try reason("j\(index)")?.hasPrefix("InvalidBroadcast") == true, "\(payload)")
        }
        client.raw(binary: [0, 1, 2, 13, 1] + Array("1g1realtime:chate".utf8) + [1, 2, 3])
        #expect(try reason("g1")?.hasPrefix("UnsupportedBinaryPayload") == true)
        // None of them reached the peer, and the connection stays usable.
        let ok = try Self.push(client, joinRef: join.joinRef, event: "fine")
        #expect(try peer.nextBinary().event == "fine")
        #expect(peer.receivedBinary.isEmpty && client.received { $0.ref == ok }.isEmpty)
        #expect(client.closedWith == nil)
    }

    @Test(arguments: [
        ([UInt8](), "malformed binary message: truncated: empty message"),
        ([3, 0, 0, 200, 1, 0, 1, 0x74], "malformed binary message: truncated: the header announces 201 bytes of fields, 1 follow it"),
        ([4, 1, 1, 0, 1, 0x74, 0x65], "malformed binary message: kind 4 is sent by the server only"),
        ([7], "malformed binary message: unknown kind 7 (clients send 0 push or 3 user broadcast push)"),
    ] as [([UInt8], String)])
    func malformedBinaryClosesWith1008AndTheReason(bytes: [UInt8], reason: String) throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service, vsn: "2.0.0")
        client.raw(binary: bytes)
        let (code, closeReason) = try client.waitForClose()
        #expect(code == .policyViolation && closeReason == reason)
    }

    @Test func binaryOnVersion1ClosesWith1003() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service, vsn: "1.0.0")
        let join = try client.join("chat", token: try server.member("rita").token)
        _ = try Self.push(client, joinRef: join.joinRef)
        let (code, reason) = try client.waitForClose()
        #expect(code == .unsupportedData && reason == "binary messages need vsn=2.0.0")
    }
}
