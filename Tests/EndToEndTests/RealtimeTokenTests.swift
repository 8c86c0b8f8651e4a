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
import Testing

/// A channel lives as long as its token: expiry and revocation close it with a `system`
/// error and `phx_close`; `access_token` events extend it.
@Suite struct RealtimeTokenTests {
    /// The member's token re-signed to expire in `seconds`.
    static func token(_ server: SyncTestServer, _ member: SyncTestServer.Member, expiringIn seconds: Int64) throws -> String {
        var claims = try server.instances[0].auth.signer.verify(member.token)
        claims.exp = Int64(Date().timeIntervalSince1970) + seconds
        return try server.instances[0].auth.signer.sign(claims)
    }

    /// Rita's channel "realtime:room" on tasks, on a fresh server.
    struct Channel {
        let server: SyncTestServer
        let service: RealtimeService
        let rita: SyncTestServer.Member
        let client: RealtimeTestClient
        let join: RealtimeTestClient.Message
    }

    /// Runs `body` with Rita joined to "room", with her token re-signed to expire in
    /// `expiringIn` seconds (her own token when nil); the realtime service stops after it.
    static func withRitasChannel(expiringIn seconds: Int64? = nil, _ body: (Channel) throws -> Void) throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let rita = try server.member("rita")
        let client = try RealtimeTestClient(service)
        let token = try seconds.map { try Self.token(server, rita, expiringIn: $0) } ?? rita.token
        let join = try client.join("room", token: token, changes: [RealtimeChannelTests.tasks])
        try body(Channel(server: server, service: service, rita: rita, client: client, join: join))
    }

    @Test func anExpiredTokenClosesTheChannelWithAnError() throws {
        try Self.withRitasChannel(expiringIn: 2) { channel in
            let (service, client, join) = (channel.service, channel.client, channel.join)
            let system = try client.next(seconds: 10) { $0.event == "system" }
            #expect(system.status == "error" && system.payload["extension"] as? String == "system")
            #expect((system.payload["message"] as? String)?.hasPrefix("Token has expired") == true)
            let close = try client.next { $0.event == "phx_close" }
            #expect(close.joinRef == join.joinRef && close.topic == "realtime:room")
            #expect(service.subscriptionCount == 0)
        }
    }

    @Test func aFreshAccessTokenKeepsTheChannelOpen() throws {
        try Self.withRitasChannel(expiringIn: 2) { channel in
            let (server, rita, client, join) = (channel.server, channel.rita, channel.client, channel.join)
            try client.push(topic: "realtime:room", event: "access_token", payload: ["access_token": rita.token], joinRef: join.joinRef)
            Thread.sleep(forTimeInterval: 3.5)
            #expect(client.received { $0.event == "system" || $0.event == "phx_close" }.isEmpty)
            let task = try server.task(by: rita)
            _ = try client.change(id: task)
        }
    }

    @Test func anotherUsersAccessTokenClosesTheChannel() throws {
        try Self.withRitasChannel { channel in
            let (client, join) = (channel.client, channel.join)
            let otto = try channel.server.member("otto")
            try client.push(topic: "realtime:room", event: "access_token", payload: ["access_token": otto.token], joinRef: join.joinRef)
            let system = try client.next { $0.event == "system" }
            #expect(system.status == "error")
            _ = try client.next { $0.event == "phx_close" }
        }
    }

    @Test func signingOutClosesTheChannel() throws {
        try Self.withRitasChannel { channel in
            let (server, rita, client) = (channel.server, channel.rita, channel.client)
            let response = try server.client.perform(method: "POST", path: "/v1/auth/logout", headers: ["Authorization": "Bearer \(rita.token)"])
            #expect(response.status == 204 || response.status == 200)
            let system = try client.next(seconds: 10) { $0.event == "system" }
            #expect(system.payload["message"] as? String == "The session has been signed out")
            _ = try client.next { $0.event == "phx_close" }
            // A write she could see is no longer delivered.
            _ = try server.task(by: rita)
            Thread.sleep(forTimeInterval: 0.5)
            #expect(client.received { $0.event == "postgres_changes" }.isEmpty)
        }
    }
}
