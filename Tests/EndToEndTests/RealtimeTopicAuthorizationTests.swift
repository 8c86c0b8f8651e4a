import Foundation
import Testing

/// Who may join which broadcast topic, over real sockets and the real server: private topics
/// (`config.private: true`) are authorized by the server's own rules (`user:<id>` that user,
/// `listing:<id>` whoever sees the listing, `admin:…` admins), anything else is refused with
/// Supabase's `Unauthorized` reply, and public topics carry no broadcast unless the operator
/// allows it (`REALTIME_PUBLIC_BROADCAST`). "Nothing arrived" is shown by order, not by waiting:
/// a legitimate member's sentinel broadcast, sent after the refused attempt was answered, is
/// the first broadcast the victim receives.
@Suite struct RealtimeTopicAuthorizationTests {
    struct People {
        let app: AuthTestServer
        let admin: String
        /// Realtors' ids and access tokens, by name.
        let ids: [String: String]
        let tokens: [String: String]
    }

    static func people(_ app: AuthTestServer, _ names: [String]) throws -> People {
        let admin = try app.login().access
        var ids: [String: String] = [:], tokens: [String: String] = [:]
        for name in names {
            let email = "\(name)-\(UUID().uuidString.prefix(8))@example.com".lowercased()
            ids[name] = try app.createRealtor(email, adminToken: admin).lowercased()
            tokens[name] = try app.login(email).access
        }
        return People(app: app, admin: admin, ids: ids, tokens: tokens)
    }

    static func broadcast(_ socket: RealtimeSocket, _ topic: String, joinRef: String?, event: String) throws -> String {
        let ref = socket.nextRef()
        try socket.push(joinRef: joinRef, ref: ref, topic: "realtime:\(topic)", event: "broadcast",
                        payload: ["type": "broadcast", "event": event, "payload": ["from": event]])
        return ref
    }

    /// The reply to `ref` (its payload).
    static func reply(_ socket: RealtimeSocket, _ ref: String) throws -> [String: Any] {
        try socket.nextText { $0[1] as? String == ref && $0[3] as? String == "phx_reply" }[4] as? [String: Any] ?? [:]
    }

    /// The event name of the next broadcast the socket receives.
    static func nextBroadcastEvent(_ socket: RealtimeSocket) throws -> String? {
        (try socket.nextText { $0[3] as? String == "broadcast" }[4] as? [String: Any])?["event"] as? String
    }

    static func isUnauthorized(_ payload: [String: Any], _ topic: String) -> Bool {
        payload["status"] as? String == "error"
            && RealtimeSocket.reason(payload) == "Unauthorized: You do not have permissions to read from this Channel topic: \(topic)"
    }

    @Test func aRealtorCannotJoinReadOrInjectOnAnotherUsersPrivateTopic() throws {
        let app = try AuthTestServer()
        let people = try Self.people(app, ["otto", "rita"])
        let otto = try #require(people.ids["otto"]), ottoToken = try #require(people.tokens["otto"])
        let ritaToken = try #require(people.tokens["rita"])
        let topic = "user:\(otto)"
        let victim = try RealtimeSocket(port: app.server.boundPort), victimPhone = try RealtimeSocket(port: app.server.boundPort)
        _ = try victim.join(topic, token: ottoToken, isPrivate: true)
        // The owner's other device spells the id in upper case, as Swift's `uuidString` does: one room.
        let phoneTopic = "user:\(otto.uppercased())"
        let phoneRef = try victimPhone.join(phoneTopic, token: ottoToken, broadcast: ["ack": true], isPrivate: true)

        let attacker = try RealtimeSocket(port: app.server.boundPort)
        let (attackRef, refused) = try attacker.joinReply(topic, token: ritaToken, broadcast: ["ack": true], isPrivate: true)
        #expect(Self.isUnauthorized(refused, topic), "\(refused)")
        // Not joined, so nothing to send on: Phoenix's answer.
        let inject = try Self.broadcast(attacker, topic, joinRef: attackRef, event: "forged")
        #expect(RealtimeSocket.reason(try Self.reply(attacker, inject)) == "unmatched topic")

        let sentinel = try Self.broadcast(victimPhone, phoneTopic, joinRef: phoneRef, event: "sentinel")
        #expect(try Self.reply(victimPhone, sentinel)["status"] as? String == "ok")
        #expect(try Self.nextBroadcastEvent(victim) == "sentinel")
    }

    @Test func aListingTopicFollowsTheListingsVisibility() throws {
        let app = try AuthTestServer()
        let people = try Self.people(app, ["owner", "staff", "stranger"])
        let ownerToken = try #require(people.tokens["owner"]), staffToken = try #require(people.tokens["staff"])
        let strangerToken = try #require(people.tokens["stranger"]), staff = try #require(people.ids["staff"])
        let created = try app.request("POST", "/v1/listings", token: ownerToken, json: ["address": "1 Main St"])
        let listing = try #require(created.json?["id"] as? String, "\(created.status)").lowercased()
        let topic = "listing:\(listing)"
        let port = app.server.boundPort

        let owner = try RealtimeSocket(port: port)
        let ownerRef = try owner.join(topic, token: ownerToken, broadcast: ["ack": true], isPrivate: true)
        let stranger = try RealtimeSocket(port: port)
        #expect(Self.isUnauthorized(try stranger.joinReply(topic, token: strangerToken, isPrivate: true).payload, topic))
        let admin = try RealtimeSocket(port: port)
        _ = try admin.join(topic, token: people.admin, isPrivate: true)
        let staffSocket = try RealtimeSocket(port: port)
        #expect(Self.isUnauthorized(try staffSocket.joinReply(topic, token: staffToken, isPrivate: true).payload, topic))
        let unknown = "listing:\(UUID().uuidString.lowercased())"
        #expect(Self.isUnauthorized(try owner.joinReply(unknown, token: ownerToken, isPrivate: true).payload, unknown))

        // Assigned as staff, the listing becomes visible: the same join now passes.
        let assigned = try app.request("PATCH", "/v1/listings/\(listing)", token: ownerToken, json: ["assigned_staff": staff])
        #expect(assigned.status == 200, "\(String(decoding: assigned.body, as: UTF8.self))")
        let staffRef = try staffSocket.join(topic, token: staffToken, isPrivate: true)
        let hello = try Self.broadcast(owner, topic, joinRef: ownerRef, event: "hello")
        #expect(try Self.reply(owner, hello)["status"] as? String == "ok")
        #expect(try Self.nextBroadcastEvent(staffSocket) == "hello")
        #expect(try Self.nextBroadcastEvent(admin) == "hello")

        // Unassigned, the former staff may no longer send there: refused, and the channel ends.
        let unassigned = try app.request("PATCH", "/v1/listings/\(listing)", token: ownerToken, json: ["assigned_staff": NSNull()])
        #expect(unassigned.status == 200)
        let late = try Self.broadcast(staffSocket, topic, joinRef: staffRef, event: "late")
        #expect(Self.isUnauthorized(try Self.reply(staffSocket, late), topic))
        #expect(try staffSocket.nextText { $0[3] as? String == "phx_close" }[2] as? String == "realtime:\(topic)")
        let after = try Self.broadcast(owner, topic, joinRef: ownerRef, event: "after")
        #expect(try Self.reply(owner, after)["status"] as? String == "ok")
        #expect(try Self.nextBroadcastEvent(admin) == "after", "the refused broadcast was relayed")
    }

    @Test func adminTopicsAreForAdminsOnlyAndUnknownPrivateTopicsForNobody() throws {
        let app = try AuthTestServer()
        let people = try Self.people(app, ["rita"])
        let ritaToken = try #require(people.tokens["rita"])
        let socket = try RealtimeSocket(port: app.server.boundPort)
        #expect(Self.isUnauthorized(try socket.joinReply("admin:alerts", token: ritaToken, isPrivate: true).payload, "admin:alerts"))
        _ = try socket.join("admin:alerts", token: people.admin, isPrivate: true)
        for topic in ["room", "team:sales", "user:not-a-uuid", "listing:"] {
            #expect(Self.isUnauthorized(try socket.joinReply(topic, token: people.admin, isPrivate: true).payload, topic))
        }
    }

    @Test func publicTopicsCarryNoBroadcastByDefault() throws {
        let app = try AuthTestServer()
        let people = try Self.people(app, ["rita", "otto"])
        let ritaToken = try #require(people.tokens["rita"]), ottoToken = try #require(people.tokens["otto"])
        let rita = try RealtimeSocket(port: app.server.boundPort), otto = try RealtimeSocket(port: app.server.boundPort)
        // Broadcast only: refused at the join, as Supabase refuses public joins on a private-only project.
        let refused = try rita.joinReply("room", token: ritaToken, isPrivate: false).payload
        #expect(refused["status"] as? String == "error" && RealtimeSocket.reason(refused)?.hasPrefix("PrivateOnly: ") == true,
                "\(refused)")
        // With postgres_changes (governed by row visibility) the join passes; a broadcast on it is refused.
        let tasks: [[String: Any]] = [["event": "*", "schema": "public", "table": "tasks"]]
        let (ref, joined) = try rita.joinReply("work", token: ritaToken, broadcast: ["ack": true], isPrivate: false, changes: tasks)
        #expect(joined["status"] as? String == "ok", "\(joined)")
        let (ottoRef, ottoJoined) = try otto.joinReply("work", token: ottoToken, broadcast: ["ack": true], isPrivate: false, changes: tasks)
        #expect(ottoJoined["status"] as? String == "ok")
        let sent = try Self.broadcast(rita, "work", joinRef: ref, event: "forged")
        #expect(RealtimeSocket.reason(try Self.reply(rita, sent))?.hasPrefix("PrivateOnly: ") == true)
        let own = try Self.broadcast(otto, "work", joinRef: ottoRef, event: "own")
        #expect(RealtimeSocket.reason(try Self.reply(otto, own))?.hasPrefix("PrivateOnly: ") == true)
    }

    @Test func withPublicBroadcastAllowedPublicTopicsAreOpenButNeverReachAPrivateOne() throws {
        let app = try AuthTestServer(realtimePublicBroadcast: true)
        let people = try Self.people(app, ["rita", "otto"])
        let ritaToken = try #require(people.tokens["rita"]), ottoToken = try #require(people.tokens["otto"])
        let otto = try #require(people.ids["otto"])
        let port = app.server.boundPort
        let rita = try RealtimeSocket(port: port), ottoPublic = try RealtimeSocket(port: port)
        let ritaRef = try rita.join("room", token: ritaToken, broadcast: ["ack": true])
        _ = try ottoPublic.join("room", token: ottoToken)
        let hello = try Self.broadcast(rita, "room", joinRef: ritaRef, event: "hello")
        #expect(try Self.reply(rita, hello)["status"] as? String == "ok")
        #expect(try Self.nextBroadcastEvent(ottoPublic) == "hello")

        // A public topic named like otto's private one is another room.
        let topic = "user:\(otto)"
        let victim = try RealtimeSocket(port: port), victimPhone = try RealtimeSocket(port: port)
        _ = try victim.join(topic, token: ottoToken, isPrivate: true)
        let phoneRef = try victimPhone.join(topic, token: ottoToken, broadcast: ["ack": true], isPrivate: true)
        let spoofRef = try rita.join(topic, token: ritaToken, broadcast: ["ack": true])
        let forged = try Self.broadcast(rita, topic, joinRef: spoofRef, event: "forged")
        #expect(try Self.reply(rita, forged)["status"] as? String == "ok")
        let sentinel = try Self.broadcast(victimPhone, topic, joinRef: phoneRef, event: "sentinel")
        #expect(try Self.reply(victimPhone, sentinel)["status"] as? String == "ok")
        #expect(try Self.nextBroadcastEvent(victim) == "sentinel")
    }
}
