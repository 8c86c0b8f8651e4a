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

/// `broadcast` between the members of a topic on one instance: self, ack, size and rate limits.
@Suite struct RealtimeBroadcastTests {
    static func message(_ event: String, _ body: [String: Any] = ["n": 1]) -> [String: Any] {
        ["type": "broadcast", "event": event, "payload": body]
    }

    @Test(arguments: ["1.0.0", "2.0.0"])
    func aBroadcastReachesTheOtherMembersOfTheTopicOnly(vsn: String) throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let rita = try server.member("rita"), otto = try server.member("otto")
        let sender = try RealtimeTestClient(service, vsn: vsn), peer = try RealtimeTestClient(service, vsn: vsn)
        let elsewhere = try RealtimeTestClient(service, vsn: vsn)
        let join = try sender.join("chat", token: rita.token)
        try peer.join("chat", token: otto.token)
        try elsewhere.join("other", token: otto.token)
        try sender.push(topic: "realtime:chat", event: "broadcast", payload: Self.message("typing", ["who": "rita"]), joinRef: join.joinRef)
        let received = try peer.next { $0.event == "broadcast" }
        #expect(received.topic == "realtime:chat" && received.ref == nil)
        #expect(received.payload["event"] as? String == "typing" && received.payload["type"] as? String == "broadcast")
        #expect((received.payload["payload"] as? [String: String]) == ["who": "rita"])
        Thread.sleep(forTimeInterval: 0.2)
        #expect(sender.received { $0.event == "broadcast" || $0.event == "phx_reply" }.isEmpty, "no echo, no ack by default")
        #expect(elsewhere.received { $0.event == "broadcast" }.isEmpty)
    }

    @Test func selfAndAckAreHonoured() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service)
        let join = try client.join("chat", token: try server.member("rita").token, broadcast: ["self": true, "ack": true])
        let ref = try client.push(topic: "realtime:chat", event: "broadcast", payload: Self.message("ping"), joinRef: join.joinRef)
        #expect(try client.next { $0.ref == ref }.status == "ok")
        #expect(try client.next { $0.event == "broadcast" }.payload["event"] as? String == "ping")
    }

    @Test func oversizedAndTooFrequentBroadcastsAreRefused() throws {
        let server = try SyncTestServer()
        var limits = RealtimeLimits()
        limits.broadcastBytes = 1024
        limits.broadcastBurst = 5
        limits.broadcastsPerSecond = 1
        let service = RealtimeChannelTests.service(server, limits: limits)
        defer { service.stop() }
        let client = try RealtimeTestClient(service), peer = try RealtimeTestClient(service)
        let join = try client.join("chat", token: try server.member("rita").token)
        try peer.join("chat", token: try server.member("otto").token)
        let big = try client.push(topic: "realtime:chat", event: "broadcast",
                                  payload: Self.message("big", ["text": String(repeating: "x", count: 2000)]), joinRef: join.joinRef)
        #expect((try client.next { $0.ref == big }.response?["reason"] as? String)?.hasPrefix("PayloadTooLarge") == true)
        for _ in 0..<10 {
            try client.push(topic: "realtime:chat", event: "broadcast", payload: Self.message("m"), joinRef: join.joinRef)
        }
        let heartbeat = try client.push(topic: "phoenix", event: "heartbeat", payload: [:])
        _ = try client.next { $0.ref == heartbeat }
        let refused = client.received { ($0.response?["reason"] as? String)?.hasPrefix("ClientBroadcastRateLimitReached") == true }
        #expect(refused.count >= 4, "\(refused.count) refused")
        #expect(peer.received { $0.event == "broadcast" }.count <= 6)
    }

    @Test func aBroadcastWithoutAnEventIsRefused() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service)
        let join = try client.join("chat", token: try server.member("rita").token)
        let ref = try client.push(topic: "realtime:chat", event: "broadcast", payload: ["type": "broadcast"], joinRef: join.joinRef)
        #expect(try client.next { $0.ref == ref }.status == "error")
    }
}
