import Foundation
import HTTPServer
import Testing

/// `/realtime/v1` frames decoded as supabase-swift 2.55.1's `RealtimeClientV2` decodes them
/// (`RealtimeMirrors`): the envelope of every frame in both protocol versions, the join reply's
/// `postgres_changes` (which the client matches to its callbacks by id), `system` and
/// heartbeat replies, refused joins, and `postgres_changes` data (INSERT, UPDATE, DELETE) with
/// `commit_timestamp` through the client's date strategy. Frames are the exact text the
/// server writes (`RealtimeTestClient` for the change feed, a real socket for the rest).
@Suite struct ClientShapeRealtimeTests {
    static func message(_ frame: RealtimeTestClient.Message, vsn: String) throws -> RealtimeMirrors.Message {
        do {
            return try RealtimeMirrors.Message.decode(frame.text, vsn: vsn)
        } catch {
            Issue.record("\(frame.event) does not decode as RealtimeMessageV2 (\(error)): \(frame.text)")
            throw error
        }
    }

    static func change(_ frame: RealtimeTestClient.Message, vsn: String) throws -> RealtimeMirrors.PostgresActionData {
        let message = try message(frame, vsn: vsn)
        #expect(message.event == "postgres_changes")
        let data = try #require(message.payload["data"], "\(frame.text)")
        return try data.decode(as: RealtimeMirrors.PostgresActionData.self)
    }

    @Test(arguments: ["1.0.0", "2.0.0"])
    func changesRepliesAndRefusalsDecodeAsTheClientDecodesThem(vsn: String) throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let otto = try server.member("otto"), rita = try server.member("rita")
        let listing = try server.listing(owner: otto, staff: rita)
        let client = try RealtimeTestClient(service, vsn: vsn)

        let heartbeat = try client.push(topic: "phoenix", event: "heartbeat", payload: [:])
        let beat = try Self.message(try client.next { $0.ref == heartbeat }, vsn: vsn)
        #expect(beat.event == "phx_reply" && beat.status == "ok")

        let joinRef = client.nextRef()
        try client.push(topic: "realtime:work", event: "phx_join",
                        payload: ["config": ["postgres_changes": [RealtimeChangesTests.entry("tasks"), RealtimeChangesTests.entry("listings", "DELETE")],
                                             "broadcast": [:] as [String: Any], "presence": ["key": ""], "private": false],
                                  "access_token": rita.token], joinRef: joinRef, ref: joinRef)
        let reply = try Self.message(try client.next { $0.event == "phx_reply" && $0.ref == joinRef }, vsn: vsn)
        #expect(reply.status == "ok" && reply.joinRef != nil)
        let configs = try #require(reply.payload["response"]?.object?["postgres_changes"]).decode(as: [RealtimeMirrors.PostgresJoinConfig].self)
        #expect(configs.map(\.table) == ["tasks", "listings"] && configs.map(\.event) == [.all, .delete])
        #expect(Set(configs.map(\.id)).count == 2)
        let system = try Self.message(try client.next { $0.event == "system" }, vsn: vsn)
        #expect(system.status == "ok")

        let task = try server.task(by: otto, on: listing)
        let insert = try Self.change(try client.change(id: task), vsn: vsn)
        #expect(insert.type == "INSERT" && insert.columns.contains { $0.name == "id" })
        #expect(SupabaseSwiftDecoding.sameUUID(insert.record?["id"]?.string, task.uuidString))
        #expect(abs(insert.commitTimestamp.timeIntervalSinceNow) < 300)
        try server.execute("UPDATE tasks SET title = 'renamed' WHERE id = \(task)")
        let update = try Self.change(try client.change(id: task), vsn: vsn)
        #expect(update.type == "UPDATE" && SupabaseSwiftDecoding.sameUUID(update.oldRecord?["id"]?.string, task.uuidString))
        try server.execute("UPDATE listings SET assigned_staff = NULL WHERE id = \(listing)")
        let removed = try Self.change(try client.change(id: listing), vsn: vsn)
        #expect(removed.type == "DELETE" && SupabaseSwiftDecoding.sameUUID(removed.oldRecord?["id"]?.string, listing.uuidString))

        // A refused join: status error, the reason a string (the client logs the payload).
        let ref = try client.push(topic: "realtime:bad", event: "phx_join",
                                  payload: ["config": ["postgres_changes": [["event": "*", "schema": "public", "table": "nope"]]],
                                            "access_token": rita.token])
        let refused = try Self.message(try client.next { $0.ref == ref }, vsn: vsn)
        #expect(refused.event == "phx_reply" && refused.status == "error")
        #expect(refused.payload["response"]?.object?["reason"]?.string?.hasPrefix("InvalidJoinPayload") == true)
    }

    /// Over a real socket: the upgrade, a join and its reply as the client receives them, and
    /// the body of a refused upgrade (Supabase Realtime's `{"error": …}`).
    @Test func aSocketJoinAndARefusedUpgradeDecode() throws {
        let app = try AuthTestServer()
        let token = try app.login().access
        let socket = try RealtimeSocket(port: app.server.boundPort)
        let ref = socket.nextRef()
        try socket.push(joinRef: ref, ref: ref, topic: "realtime:admin:room", event: "phx_join",
                        payload: ["config": ["broadcast": [:] as [String: Any], "presence": ["key": ""],
                                             "postgres_changes": [] as [Any], "private": true], "access_token": token])
        var message: RealtimeMirrors.Message?
        while message == nil {
            guard case .text(let text) = try socket.next() else { continue }
            let decoded = try RealtimeMirrors.Message.decode(text, vsn: "2.0.0")
            if decoded.ref == ref { message = decoded }
        }
        let reply = try #require(message)
        #expect(reply.event == "phx_reply" && reply.status == "ok" && reply.joinRef == ref)

        let refused = try app.request("GET", "/realtime/v1/websocket?vsn=2.0.0",
                                      headers: ["Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="])
        #expect(refused.status == 401)
        #expect((refused.json?["error"] as? String)?.isEmpty == false && refused.json?.count == 1)
    }
}
