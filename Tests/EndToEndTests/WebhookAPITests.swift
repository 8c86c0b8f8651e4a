import Foundation
import Testing

/// `/v1/webhooks` over real HTTP: admins only (a session or an admin's API key), the secret
/// shown only on create and rotate, validation in the contract's shape.
@Suite struct WebhookAPITests {
    @Test func adminsManageEndpointsAndTheSecretAppearsOnlyOnCreateAndRotate() throws {
        let world = try WebhookWorld()
        let app = world.app
        let created = try world.createEndpoint(url: "https://hooks.example.com/in", events: ["task.created", "task.claimed"])
        #expect(created.secret.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(created.secret.dropFirst(6)))?.count == 32)
        let listed = try app.request("GET", "/v1/webhooks", token: world.admin)
        #expect(listed.status == 200)
        let text = String(decoding: listed.body, as: UTF8.self)
        #expect(!text.contains(created.secret) && !text.contains("whsec_") && !text.contains("\"secret\""))
        let one = try app.request("GET", "/v1/webhooks/\(created.id)", token: world.admin)
        #expect(one.status == 200 && one.json?["secret"] == nil && one.json?["enabled"] as? Bool == true)
        #expect(one.json?["events"] as? [String] == ["task.claimed", "task.created"])

        // Stored sealed: the database never holds the clear text.
        #expect(try world.scalar("SELECT string_agg(secret, ',') FROM webhook_endpoints")?.contains(created.secret) == false)

        let patched = try app.request("PATCH", "/v1/webhooks/\(created.id)", token: world.admin,
                                      json: ["enabled": false, "events": ["*"], "description": "paused"])
        #expect(patched.status == 200 && patched.json?["enabled"] as? Bool == false && patched.json?["events"] as? [String] == ["*"])
        #expect(patched.json?["description"] as? String == "paused" && patched.json?["secret"] == nil)

        let rotated = try app.request("POST", "/v1/webhooks/\(created.id)/rotate-secret", token: world.admin)
        let newSecret = rotated.json?["secret"] as? String
        #expect(rotated.status == 200 && newSecret?.hasPrefix("whsec_") == true && newSecret != created.secret)
        #expect(rotated.json?["previous_secret_expires_at"] as? String != nil)

        #expect(try app.request("DELETE", "/v1/webhooks/\(created.id)", token: world.admin).status == 204)
        #expect(try app.request("GET", "/v1/webhooks/\(created.id)", token: world.admin).status == 404)
    }

    @Test func realtorsAreRefusedAndAnAdminsAPIKeyIsAccepted() throws {
        let world = try WebhookWorld()
        let app = world.app
        let created = try world.createEndpoint(url: "https://hooks.example.com/in")
        _ = try app.createRealtor("rita@example.com", adminToken: world.admin)
        let realtor = try app.login("rita@example.com").access
        #expect(try app.request("GET", "/v1/webhooks", token: realtor).status == 403)
        #expect(try app.request("POST", "/v1/webhooks", token: realtor, json: ["url": "https://x.example.com", "events": ["*"]]).status == 403)
        #expect(try app.request("POST", "/v1/webhooks/\(created.id)/rotate-secret", token: realtor).status == 403)
        #expect(try app.request("GET", "/v1/webhooks/\(created.id)/deliveries", token: realtor).status == 403)
        #expect(try app.request("DELETE", "/v1/webhooks/\(created.id)", token: realtor).status == 403)
        #expect(try app.request("GET", "/v1/webhooks").status == 401)

        let key = try app.request("POST", "/v1/api-keys", token: world.admin, json: ["name": "integration"])
        let apiKey = try #require(key.json?["key"] as? String)
        #expect(try app.request("GET", "/v1/webhooks", token: apiKey).status == 200)
        let byKey = try app.request("POST", "/v1/webhooks", token: apiKey, json: ["url": "https://y.example.com/h", "events": ["note.created"]])
        #expect(byKey.status == 201)
    }

    @Test func badInputIsRefusedInTheContractShape() throws {
        let world = try WebhookWorld()
        let app = world.app
        for body: [String: Any] in [
            ["url": "ftp://hooks.example.com", "events": ["*"]],
            ["url": "https://hooks.example.com", "events": ["task.exploded"]],
            ["url": "https://hooks.example.com", "events": []],
            ["url": "https://user:pw@hooks.example.com", "events": ["*"]],
            ["events": ["*"]],
            ["url": "https://hooks.example.com", "events": ["*"], "secret": "whsec_mine"],
        ] {
            let response = try app.request("POST", "/v1/webhooks", token: world.admin, json: body)
            #expect(response.status == 422, "\(body)")
            #expect(response.json?["code"] as? String == "validation_failed")
        }
        #expect(try app.request("GET", "/v1/webhooks/not-a-uuid", token: world.admin).status == 404)
        let created = try world.createEndpoint(url: "https://hooks.example.com/in")
        let bad = try app.request("GET", "/v1/webhooks/\(created.id)/deliveries?status=lost", token: world.admin)
        #expect(bad.status == 400)
    }
}
