import Foundation
import Testing

/// Deliveries over real HTTP to a scripted receiver on 127.0.0.1, whose signatures the PyPI
/// `standardwebhooks` package verifies.
@Suite struct WebhookDeliveryTests {
    @Test func aCreatedTaskArrivesSignedAsStandardWebhooksVerifiesIt() throws {
        let world = try WebhookWorld()
        let endpoint = try world.createEndpoint(url: world.receiver.url("200"), events: ["task.created"])
        let sender = try world.makeSender()
        sender.start()
        defer { sender.stop() }
        let task = try world.createTask("Order photos")
        #expect(try world.wait { try world.receiver.requests().count == 1 })
        let request = try #require(try world.receiver.requests().first)
        #expect(request.verified == [0], "standardwebhooks did not verify: \(request.headers)")
        #expect(request.webhookID?.hasPrefix("msg_") == true)
        #expect(request.webhookID == (try world.scalar("SELECT event_id FROM webhook_deliveries")))
        let json = try #require(request.json)
        #expect(json["type"] as? String == "task.created" && json["timestamp"] as? String != nil)
        let data = try #require(json["data"] as? [String: Any])
        #expect(data["id"] as? String == task && data["title"] as? String == "Order photos" && data["version"] as? Int == 1)
        // The row exactly as GET /v1 renders it for an admin.
        let got = try world.app.request("GET", "/v1/tasks/\(task)", token: world.admin).json
        #expect(NSDictionary(dictionary: data).isEqual(to: try #require(got)))
        #expect(try world.wait {
            let listed = try world.app.request("GET", "/v1/webhooks/\(endpoint.id)/deliveries?status=succeeded", token: world.admin)
            let items = listed.json?["items"] as? [[String: Any]] ?? []
            return items.first?["http_status"] as? Int == 200 && items.first?["event_id"] as? String == request.webhookID
                && items.first?["type"] as? String == "task.created" && items.first?["duration_ms"] as? Int != nil
        })
    }

    @Test func retriesKeepTheWebhookIDWithAFreshTimestampAndNoRedirectIsFollowed() throws {
        let world = try WebhookWorld()
        try world.createEndpoint(url: world.receiver.url("500,302,reset,200"))
        // Over a second apart: the timestamp is in whole seconds.
        let sender = try world.makeSender(waits: [.milliseconds(1100), .milliseconds(1100), .milliseconds(1100)])
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait { try world.receiver.requests().count == 4 })
        let requests = try world.receiver.requests()
        #expect(requests.map(\.answer) == ["500", "302", "reset", "200"])
        #expect(Set(requests.compactMap(\.webhookID)).count == 1)
        // Each attempt is signed when it is sent, not when it was queued: its timestamp is no
        // earlier than the second in which the previous attempt arrived.
        let stamps = requests.compactMap { $0.timestamp.flatMap(Int.init) }
        #expect(stamps.count == 4 && stamps.first != stamps.last)
        for (earlier, later) in zip(requests, stamps.dropFirst()) {
            #expect(later >= Int(earlier.received_at), "a retry reused an old timestamp: \(stamps)")
        }
        #expect(requests.allSatisfy { $0.verified == [0] })
        #expect(requests.allSatisfy { $0.path.contains("/s/") }, "a redirect was followed")
        #expect(try world.wait { try world.scalar("SELECT attempts || ':' || (sent_at IS NOT NULL) FROM webhook_deliveries") == "4:true" })
    }

    @Test func retryAfterIsHonoured() throws {
        let world = try WebhookWorld()
        try world.createEndpoint(url: world.receiver.url("429-40,200"))
        let sender = try world.makeSender(waits: [.milliseconds(50)])
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait { try world.scalar("SELECT last_status::text FROM webhook_deliveries") == "429" })
        // The schedule said 50 ms; the receiver asked for 40 s.
        let wait = try #require(try world.scalar("SELECT extract(epoch FROM next_attempt_at - last_attempt_at)::text FROM webhook_deliveries"))
        #expect((Double(wait) ?? 0) >= 39)
    }

    @Test func a410DisablesTheEndpointAtOnce() throws {
        let world = try WebhookWorld()
        let endpoint = try world.createEndpoint(url: world.receiver.url("410"))
        let sender = try world.makeSender()
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait { try world.scalar("SELECT (dead_at IS NOT NULL)::text FROM webhook_deliveries") == "true" })
        let shown = try world.app.request("GET", "/v1/webhooks/\(endpoint.id)", token: world.admin).json
        #expect(shown?["enabled"] as? Bool == false)
        #expect((shown?["disabled_reason"] as? String)?.contains("410") == true)
        #expect(try world.receiver.requests().count == 1)
        // A disabled endpoint is not subscribed any more: the next write queues nothing for it.
        try world.createTask("Second")
        #expect(try world.scalar("SELECT count(*)::text FROM webhook_deliveries") == "1")
        #expect(sender.counts.endpointsDisabled == 1)
        #expect(try world.scalar("SELECT kind || ' ' || recipient FROM mail_outbox") == "webhook_disabled \(AuthTestServer.adminEmail)")
    }

    @Test func exhaustedAttemptsAreMarkedDead() throws {
        let world = try WebhookWorld()
        let endpoint = try world.createEndpoint(url: world.receiver.url("500"))
        let sender = try world.makeSender(waits: [.milliseconds(50), .milliseconds(50), .milliseconds(50)])
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait {
            let listed = try world.app.request("GET", "/v1/webhooks/\(endpoint.id)/deliveries?status=dead", token: world.admin)
            let item = (listed.json?["items"] as? [[String: Any]])?.first
            return item?["attempts"] as? Int == 4 && item?["http_status"] as? Int == 500 && item?["next_attempt_at"] is NSNull
        })
        #expect(try world.receiver.requests().count == 4)
        #expect(sender.counts.dead == 1)
    }

    @Test func aReceiverSlowerThanTheTimeoutIsAFailedAttempt() throws {
        let world = try WebhookWorld()
        try world.createEndpoint(url: world.receiver.url("slow-3,200"))
        let sender = try world.makeSender(timeout: .seconds(1))
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait { try world.scalar("SELECT (sent_at IS NOT NULL)::text FROM webhook_deliveries") == "true" })
        #expect(try world.scalar("SELECT attempts::text FROM webhook_deliveries") == "2")
        #expect(try world.receiver.requests().map(\.answer) == ["slow-3", "200"])
    }

    @Test func anEndpointFailingForFiveDaysIsDisabled() throws {
        let world = try WebhookWorld()
        let endpoint = try world.createEndpoint(url: world.receiver.url("500"))
        // Time without sleeping: the failure clock started six days ago.
        try world.app.database.pool.execute("UPDATE webhook_endpoints SET failing_since = now() - interval '6 days'")
        let sender = try world.makeSender()
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait {
            try world.app.request("GET", "/v1/webhooks/\(endpoint.id)", token: world.admin).json?["enabled"] as? Bool == false
        })
        #expect(try world.scalar("SELECT disabled_reason FROM webhook_endpoints")?.contains("120 hours") == true)
        // Its creator is told through the mail outbox (queued just after the endpoint is disabled).
        #expect(try world.wait {
            try world.scalar("SELECT kind || ' ' || recipient FROM mail_outbox") == "webhook_disabled \(AuthTestServer.adminEmail)"
        })
    }

    @Test func aRotatedSecretSignsBesideTheOldOne() throws {
        let world = try WebhookWorld()
        let endpoint = try world.createEndpoint(url: world.receiver.url("200"))
        let rotated = try world.app.request("POST", "/v1/webhooks/\(endpoint.id)/rotate-secret", token: world.admin)
        let newSecret = try #require(rotated.json?["secret"] as? String)
        try world.receiver.trust([endpoint.secret, newSecret])
        let sender = try world.makeSender()
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait { try world.receiver.requests().count == 1 })
        let request = try #require(try world.receiver.requests().first)
        #expect(request.verified == [0, 1])
        #expect(request.headers["webhook-signature"]?.split(separator: " ").filter { $0.hasPrefix("v1,") }.count == 2)
    }

    @Test func replayResendsWithTheSameWebhookID() throws {
        let world = try WebhookWorld()
        let endpoint = try world.createEndpoint(url: world.receiver.url("200"))
        let sender = try world.makeSender()
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait { try world.scalar("SELECT (sent_at IS NOT NULL)::text FROM webhook_deliveries") == "true" })
        let delivery = try #require(try world.scalar("SELECT id::text FROM webhook_deliveries"))
        let replay = try world.app.request("POST", "/v1/webhooks/\(endpoint.id)/deliveries/\(delivery)/replay", token: world.admin)
        #expect(replay.status == 202 && replay.json?["status"] as? String == "pending", "\(replay.status) \(String(decoding: replay.body, as: UTF8.self))")
        #expect(try world.wait { try world.receiver.requests().count == 2 })
        let ids = try world.receiver.requests().compactMap(\.webhookID)
        #expect(ids.count == 2 && ids[0] == ids[1])
        let other = UUID().uuidString.lowercased()
        #expect(try world.app.request("POST", "/v1/webhooks/\(endpoint.id)/deliveries/\(other)/replay", token: world.admin).status == 404)
    }

    @Test func theAddressGuardRefusesLoopbackUnlessAllowed() throws {
        let world = try WebhookWorld()
        // A name that resolves to 127.0.0.1: the guard judges the resolved address, not the text.
        try world.createEndpoint(url: "http://localhost:\(world.receiver.port)/s/200")
        let sender = try world.makeSender(allowLoopback: false)
        sender.start()
        defer { sender.stop() }
        try world.createTask()
        #expect(try world.wait { try world.scalar("SELECT last_error FROM webhook_deliveries")?.contains("address guard") == true })
        #expect(try world.scalar("SELECT last_error FROM webhook_deliveries")?.contains("loopback") == true)
        #expect(try world.receiver.requests().isEmpty)
        #expect(sender.counts.refusedByGuard >= 1)
    }
}
