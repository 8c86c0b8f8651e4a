@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Credentials
import Foundation
import HTTPServer
import Testing

/// The Phoenix channel protocol as Supabase Realtime speaks it, driven in process against
/// real PostgreSQL (tokens, users) through the WebSocket seam's fake outbound.
@Suite struct RealtimeChannelTests {
    /// Public broadcast on by default: these suites test the protocol's mechanics on public
    /// topics; who may broadcast where is `RealtimeTopicAuthorizationTests`'.
    static func service(_ server: SyncTestServer, instance: Int = 0, limits: RealtimeLimits = RealtimeLimits(),
                        publicBroadcast: Bool = true) -> RealtimeService {
        RealtimeService(auth: server.instances[instance].auth, sync: server.instances[instance].sync, limits: limits,
                        publicBroadcast: publicBroadcast, tokenCheckInterval: .milliseconds(200))
    }

    static var tasks: [String: Any] { ["event": "*", "schema": "public", "table": "tasks"] }

    @Test(arguments: ["1.0.0", "2.0.0"])
    func heartbeatsAreAnsweredOnThePhoenixTopic(vsn: String) throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service, vsn: vsn)
        let ref = try client.push(topic: "phoenix", event: "heartbeat", payload: [:])
        let reply = try client.next { $0.ref == ref }
        #expect(reply.event == "phx_reply" && reply.topic == "phoenix" && reply.status == "ok")
        #expect(reply.response?.isEmpty == true)
    }

    @Test(arguments: ["1.0.0", "2.0.0"])
    func aJoinRepliesWithTheEntriesEchoedAndIDsThenSubscribed(vsn: String) throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let rita = try server.member("rita")
        let client = try RealtimeTestClient(service, vsn: vsn)
        let filter = "created_by=eq.\(rita.id.uuidString)"
        let changes: [[String: Any]] = [Self.tasks, ["event": "INSERT", "schema": "public", "table": "notes", "filter": filter]]
        let ref = client.nextRef()
        try client.push(topic: "realtime:room", event: "phx_join",
                        payload: ["config": ["postgres_changes": changes], "access_token": rita.token], joinRef: ref, ref: ref)
        let reply = try client.next { $0.ref == ref }
        #expect(reply.status == "ok" && reply.joinRef == ref && reply.topic == "realtime:room", "\(reply)")
        let echoed = try #require(reply.response?["postgres_changes"] as? [[String: Any]])
        #expect(echoed.count == 2)
        #expect(echoed[0]["event"] as? String == "*" && echoed[0]["table"] as? String == "tasks" && echoed[0]["filter"] == nil)
        #expect(echoed[1]["filter"] as? String == filter && echoed[1]["schema"] as? String == "public")
        #expect(echoed.allSatisfy { $0["id"] is Int } && echoed[0]["id"] as? Int != echoed[1]["id"] as? Int)
        let system = try client.next { $0.event == "system" }
        #expect(system.ref == nil && system.topic == "realtime:room" && system.status == "ok")
        #expect(system.payload["extension"] as? String == "postgres_changes" && system.payload["message"] as? String == "Subscribed to PostgreSQL")
        #expect(system.payload["channel"] as? String == "room")
    }

    @Test func aBroadcastOnlyJoinGetsAnEmptyListAndNoSystemMessage() throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service)
        let reply = try client.join("chat", token: try server.member("rita").token)
        #expect(reply.status == "ok" && (reply.response?["postgres_changes"] as? [Any])?.isEmpty == true)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(client.received { $0.event == "system" }.isEmpty)
    }

    @Test func joinsWithoutAUsersTokenAreRefused() throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let rita = try server.member("rita")
        let claims = try server.instances[0].auth.signer.verify(rita.token)
        var expired = claims
        expired.exp = Int64(Date().timeIntervalSince1970) - 30
        expired.iat = expired.exp - 60
        let expiredToken = try server.instances[0].auth.signer.sign(expired)
        let client = try RealtimeTestClient(service)
        for token in [nil, "sb_publishable_abcdefghijklmnopqrstuvwxyz", "dsk_whatever", "not.a.jwt", expiredToken, rita.token + "x"] {
            let reply = try client.join("room", token: token, changes: [Self.tasks])
            #expect(reply.status == "error", "\(token ?? "nil")")
            #expect((reply.response?["reason"] as? String)?.hasPrefix("InvalidJWTToken: ") == true)
        }
        let forged = try JWTSigner(secret: String(repeating: "x", count: 32)).sign(claims)
        #expect(try client.join("room", token: forged).status == "error")
    }

    @Test func badConfigurationsAreRefusedWithTheirReason() throws {
        let server = try SyncTestServer()
        let service = Self.service(server, limits: { var l = RealtimeLimits(); l.channelsPerConnection = 2; return l }())
        defer { service.stop() }
        let token = try server.member("rita").token
        let client = try RealtimeTestClient(service)
        let bad = try client.join("room", token: token, changes: [["event": "*", "schema": "public", "table": "secrets"]])
        #expect(bad.status == "error" && (bad.response?["reason"] as? String)?.contains("secrets") == true)
        let badFilter = try client.join("room", token: token, changes: [["event": "*", "schema": "public", "table": "tasks", "filter": "title=like.x"]])
        #expect((badFilter.response?["reason"] as? String)?.hasPrefix("InvalidJoinPayload:") == true)
        let ref = try client.push(topic: "realtime:", event: "phx_join", payload: ["access_token": token])
        #expect((try client.next { $0.ref == ref }.response?["reason"] as? String)?.hasPrefix("TopicNameRequired") == true)
        let other = try client.push(topic: "lobby", event: "phx_join", payload: ["access_token": token])
        #expect(try client.next { $0.ref == other }.response?["reason"] as? String == "unmatched topic")
        #expect(try client.join("a", token: token).status == "ok")
        #expect(try client.join("b", token: token).status == "ok")
        let third = try client.join("c", token: token)
        #expect((third.response?["reason"] as? String)?.hasPrefix("ChannelRateLimitReached") == true)
    }

    @Test func messagesOnTopicsNotJoinedAreUnmatched() throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service)
        let ref = try client.push(topic: "realtime:nowhere", event: "broadcast", payload: ["type": "broadcast", "event": "x", "payload": [:]])
        let reply = try client.next { $0.ref == ref }
        #expect(reply.status == "error" && reply.response?["reason"] as? String == "unmatched topic")
    }

    @Test(arguments: ["1.0.0", "2.0.0"])
    func malformedMessagesCloseTheSocketWithAReason(vsn: String) throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service, vsn: vsn)
        client.raw(vsn == "1.0.0" ? "[1,2,3]" : #"{"topic":"phoenix"}"#)
        let (code, reason) = try client.waitForClose()
        #expect(code == .policyViolation && reason.hasPrefix("malformed message"))
    }

    @Test func leaveRepliesThenClosesAndStopsEvents() throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let rita = try server.member("rita")
        let client = try RealtimeTestClient(service)
        let join = try client.join("room", token: rita.token, changes: [Self.tasks])
        let ref = try client.push(topic: "realtime:room", event: "phx_leave", payload: [:], joinRef: join.joinRef)
        let reply = try client.next { $0.ref == ref }
        #expect(reply.event == "phx_reply" && reply.status == "ok")
        let close = try client.next { $0.event == "phx_close" }
        #expect(close.topic == "realtime:room" && close.joinRef == join.joinRef)
        #expect(service.subscriptionCount == 0)
        _ = try server.task(by: rita)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(client.received { $0.event == "postgres_changes" }.isEmpty)
    }

    @Test func presenceIsRefusedCleanlyAndTheChannelStays() throws {
        let server = try SyncTestServer()
        let service = Self.service(server)
        defer { service.stop() }
        let client = try RealtimeTestClient(service)
        let join = try client.join("room", token: try server.member("rita").token)
        let ref = try client.push(topic: "realtime:room", event: "presence", payload: ["type": "presence", "event": "track", "payload": [:]],
                                  joinRef: join.joinRef)
        let reply = try client.next { $0.ref == ref }
        #expect(reply.status == "error" && (reply.response?["reason"] as? String)?.hasPrefix("PresenceNotSupported") == true)
        let heartbeat = try client.push(topic: "phoenix", event: "heartbeat", payload: [:])
        #expect(try client.next { $0.ref == heartbeat }.status == "ok")
        #expect(client.received { $0.event == "phx_close" }.isEmpty)
    }
}
