import Foundation
import Testing

/// Binary broadcasts end to end over real sockets and the real server (HTTP upgrade, the
/// event loop's framing, the worker pool, the channel layer): vsn 2.0.0 clients speak as
/// supabase-swift does (`PhoenixBinaryClient`), a vsn 1.0.0 member listens in.
@Suite struct RealtimeBinarySocketTests {
    /// Signed-in realtors' access tokens.
    static func tokens(_ app: AuthTestServer, _ names: [String]) throws -> [String] {
        let admin = try app.login().access
        return try names.map { name in
            let email = "\(name)-\(UUID().uuidString.prefix(8))@example.com".lowercased()
            _ = try app.createRealtor(email, adminToken: admin)
            return try app.login(email).access
        }
    }

    @Test func binaryBroadcastsReachTheOtherMembersWithSelfAndAck() throws {
        let app = try AuthTestServer(realtimePublicBroadcast: true)
        let port = app.server.boundPort
        let tokens = try Self.tokens(app, ["rita", "otto", "olga"])
        let (rita, otto, olga) = (tokens[0], tokens[1], tokens[2])
        let sender = try RealtimeSocket(port: port), peer = try RealtimeSocket(port: port)
        let listener1 = try RealtimeSocket(port: port, vsn: "1.0.0")
        let joinRef = try sender.join("room", token: rita, broadcast: ["self": true, "ack": true])
        _ = try peer.join("room", token: otto)
        try listener1.send(text: #"{"join_ref":"1","ref":"1","topic":"realtime:room","event":"phx_join","payload":{"access_token":"\#(olga)"}}"#)
        #expect(try listener1.next() != .close(nil)) // its join reply

        // A JSON payload: binary to 2.0.0 members (the sender too: self), text to 1.0.0, and an ack.
        let ref = sender.nextRef()
        try sender.send(binary: try PhoenixBinaryClient.userBroadcastPush(joinRef: joinRef, ref: ref, topic: "realtime:room",
                                                                          event: "typing", object: ["who": "rita"]))
        guard case .binary(let relayed) = try peer.next() else {
            Issue.record("the peer should get a binary frame")
            return
        }
        let received = try PhoenixBinaryClient.decode(relayed)
        #expect(received.topic == "realtime:room" && received.event == "typing" && received.object?["who"] as? String == "rita")
        var ackSeen = false, selfSeen = false
        while !(ackSeen && selfSeen) {
            switch try sender.next() {
            case .text(let text):
                let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any])
                #expect(array[0] as? String == joinRef && array[1] as? String == ref && array[3] as? String == "phx_reply")
                #expect((array[4] as? [String: Any])?["status"] as? String == "ok")
                ackSeen = true
            case .binary(let bytes):
                #expect(try PhoenixBinaryClient.decode(bytes).event == "typing")
                selfSeen = true
            case .close(let code):
                Issue.record("closed with \(code.map(String.init) ?? "none")")
                return
            }
        }
        guard case .text(let v1Text) = try listener1.next(),
              let v1 = try JSONSerialization.jsonObject(with: Data(v1Text.utf8)) as? [String: Any] else {
            Issue.record("the 1.0.0 member should get text")
            return
        }
        #expect(v1["event"] as? String == "broadcast" && (v1["payload"] as? [String: Any])?["event"] as? String == "typing")

        // A binary payload big enough for 16-bit frame lengths both ways: to the 2.0.0 peer as sent.
        let blob = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try sender.send(binary: PhoenixBinaryClient.userBroadcastPush(joinRef: joinRef, ref: sender.nextRef(), topic: "realtime:room",
                                                                      event: "blob", json: false, payload: blob))
        #expect(try peer.next() == .binary([4, 13, 4, 0, 0] + Array("realtime:roomblob".utf8) + blob))
        // The 1.0.0 member cannot carry it and gets nothing.
        #expect(listener1.drain(seconds: 1).isEmpty)
    }

    @Test func malformedBinaryAndBinaryOnVersion1CloseTheSocket() throws {
        let app = try AuthTestServer()
        let port = app.server.boundPort
        let v2 = try RealtimeSocket(port: port)
        try v2.send(binary: [3, 0, 0, 200, 1, 0, 1])
        #expect(try v2.next() == .close(1008))
        let v1 = try RealtimeSocket(port: port, vsn: "1.0.0")
        try v1.send(binary: [3, 0, 0, 1, 1, 0, 1, 0x74, 0x65, 0x7B, 0x7D])
        #expect(try v1.next() == .close(1003))
    }
}
