@testable import API
import Foundation
@testable import Slack
import Testing

/// Slack's signed requests over real HTTP against real PostgreSQL, each signed by Slack's own
/// SDK (slack_sdk's SignatureVerifier, via scripts/slack_fake.py), never by the server's code.
@Suite struct SlackInboundTests {
    @Test func slashCommandFromLinkedUserCreatesExactlyOneTaskAndARetryCreatesNothing() throws {
        let world = try SlackWorld()
        try world.linkRealtor()
        let body = world.commandBody(text: "Order photos for 12 Elm")
        let first = try world.send("/integrations/slack/commands", body: body)
        #expect(first.status == 200)
        #expect((first.json?["response_type"] as? String) == "ephemeral")
        #expect((first.json?["text"] as? String)?.contains("Created task") == true)
        #expect(try world.count("SELECT count(*) FROM tasks") == 1)
        let row = try #require(try world.app.database.pool.query("""
            SELECT title, declared_by::text AS declared_by, created_via, source_slack_messages FROM tasks
            """).first)
        #expect(try row.decode("title", as: String.self) == "Order photos for 12 Elm")
        #expect(try row.decode("declared_by", as: String.self) == world.realtorID)
        #expect(try row.decode("created_via", as: String.self) == "slack")
        #expect(try row.decode("source_slack_messages", as: [String].self) == ["G8PSS9T3V:398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"])

        // Slack's retry of the same request, and a replay a second later: nothing new.
        let retry = try world.send("/integrations/slack/commands", body: body, extra: ["X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"])
        #expect(retry.status == 200)
        #expect((retry.json?["text"] as? String)?.contains("already created") == true)
        #expect(try world.count("SELECT count(*) FROM tasks") == 1)
        #expect(try world.count("SELECT count(*) FROM slack_receipts") == 1)
    }

    @Test func messageShortcutCreatesOneTaskFromTheMessageAndFollowsUpThroughResponseURL() throws {
        let world = try SlackWorld()
        try world.linkRealtor()
        let message = "Photographer needs access on Friday\nLockbox code is with the office."
        let payload: [String: Any] = [
            "type": "message_action", "callback_id": "create_dispatch_task", "trigger_id": "13345224609.738474920.8088930838d88f008e0",
            "response_url": world.fake.base + "actions/T1DC2JH3J/1234567890/AbCdEf", "message_ts": "1512085950.000216",
            "team": ["id": SlackWorld.team, "domain": "testteamnow"], "channel": ["id": "C065W1189", "name": "listings"],
            "user": ["id": SlackWorld.slackUser, "name": "roadrunner"],
            "message": ["type": "message", "user": "U045VRZFT", "ts": "1512085950.000216", "text": message],
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self)
        let body = "payload=" + SlackWorld.escape(json)
        let first = try world.send("/integrations/slack/interactivity", body: body)
        #expect(first.status == 200)
        #expect(first.body.isEmpty)
        let row = try #require(try world.app.database.pool.query("""
            SELECT title, description, declared_by::text AS declared_by, created_via, source_slack_messages FROM tasks
            """).first)
        #expect(try row.decode("title", as: String.self) == "Photographer needs access on Friday")
        #expect(try row.decode("description", as: String.self) == message)
        #expect(try row.decode("declared_by", as: String.self) == world.realtorID)
        #expect(try row.decode("created_via", as: String.self) == "slack")
        #expect(try row.decode("source_slack_messages", as: [String].self) == ["C065W1189:1512085950.000216"])
        // The confirmation goes to response_url from the outbox, after the transaction.
        let followUps = world.fake.waitForRequests(1)
        #expect(followUps.first?.path == "/actions/T1DC2JH3J/1234567890/AbCdEf")
        #expect(followUps.first?.body.contains("Created task") == true)

        let retry = try world.send("/integrations/slack/interactivity", body: body, extra: ["X-Slack-Retry-Num": "1"])
        #expect(retry.status == 200)
        #expect(try world.count("SELECT count(*) FROM tasks") == 1)
        #expect(try world.count("SELECT count(*) FROM slack_outbox WHERE kind = 'response'") == 1)
    }

    @Test func badSignatureStaleOrFutureTimestampAndNoSignatureGet401AndWriteNothing() throws {
        let world = try SlackWorld()
        try world.linkRealtor()
        let body = world.commandBody(text: "Should never exist")
        let now = Int(Date().timeIntervalSince1970)
        let forged = try world.send("/integrations/slack/commands", body: body, secret: "another-secret-0123456789abcdef")
        #expect(forged.status == 401)
        #expect((forged.json?["code"] as? String) == "unauthorized")
        let stale = try world.send("/integrations/slack/commands", body: body, timestamp: now - 360)
        #expect(stale.status == 401)
        let future = try world.send("/integrations/slack/commands", body: body, timestamp: now + 360)
        #expect(future.status == 401)
        // Signed correctly, then the body changed on the way.
        let signature = try SlackFake.sign(body, secret: SlackWorld.secret, timestamp: now)
        let altered = try world.app.request("POST", "/integrations/slack/commands", body: Array((body + "x").utf8), headers: [
            "Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": String(now), "X-Slack-Signature": signature,
        ])
        #expect(altered.status == 401)
        let unsigned = try world.app.request("POST", "/integrations/slack/events", body: Array(#"{"type":"url_verification","challenge":"x"}"#.utf8),
                                             headers: ["Content-Type": "application/json"])
        #expect(unsigned.status == 401)
        #expect(try world.count("SELECT count(*) FROM tasks") == 0)
        #expect(try world.count("SELECT count(*) FROM slack_receipts") == 0)
        #expect(try world.count("SELECT count(*) FROM slack_outbox") == 0)
    }

    @Test func unlinkedSlackUserGetsEphemeralHowToLinkAndNoTaskUnderAnyoneElsesName() throws {
        let world = try SlackWorld()
        try world.linkRealtor()
        let response = try world.send("/integrations/slack/commands", body: world.commandBody(text: "Sneaky task", user: "U999STRANGER"))
        #expect(response.status == 200)
        #expect((response.json?["response_type"] as? String) == "ephemeral")
        let text = try #require(response.json?["text"] as? String)
        #expect(text.contains("not linked"))
        #expect(text.contains("U999STRANGER"))
        #expect(try world.count("SELECT count(*) FROM tasks") == 0)
        #expect(try world.count("SELECT count(*) FROM slack_receipts") == 0)
    }

    @Test func urlVerificationChallengeIsEchoed() throws {
        let world = try SlackWorld()
        let body = #"{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}"#
        let response = try world.send("/integrations/slack/events", body: body, contentType: "application/json")
        #expect(response.status == 200)
        #expect((response.json?["challenge"] as? String) == "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P")
    }

    @Test func integrationStateNeverShowsSecretsAndOnlyAdminsManageIt() throws {
        let world = try SlackWorld()
        let read = try world.app.request("GET", "/v1/integrations/slack", token: world.adminToken)
        #expect(read.status == 200)
        let text = String(decoding: read.body, as: UTF8.self)
        #expect(!text.contains(SlackWorld.secret))
        #expect(!text.contains("secretpart123"))
        #expect((read.json?["state"] as? String) == "active")
        #expect((read.json?["team_id"] as? String) == SlackWorld.team)
        // Sealed at rest: neither the secret nor the webhook's secret part is in the table.
        let stored = try #require(try world.app.database.pool.query("SELECT signing_secret || incoming_webhook_url AS t FROM slack_integration").first)
        let raw: String = try stored.decode("t")
        #expect(!raw.contains(SlackWorld.secret) && !raw.contains("secretpart123"))

        #expect(try world.app.request("GET", "/v1/integrations/slack", token: world.realtorToken).status == 403)
        #expect(try world.app.request("POST", "/v1/integrations/slack", token: world.realtorToken, json: [
            "team_id": "T0EVIL", "signing_secret": "0123456789abcdef0123", "incoming_webhook_url": world.webhookURL,
        ]).status == 403)
        #expect(try world.app.request("PUT", "/v1/integrations/slack/users/\(world.realtorID)", token: world.realtorToken,
                                      json: ["slack_user_id": "U0EVIL"]).status == 403)
        let elsewhere = try world.app.request("POST", "/v1/integrations/slack", token: world.adminToken, json: [
            "team_id": SlackWorld.team, "signing_secret": SlackWorld.secret, "incoming_webhook_url": "http://169.254.169.254/latest/meta-data",
        ])
        #expect(elsewhere.status == 422)
        #expect(try world.app.request("DELETE", "/v1/integrations/slack", token: world.adminToken).status == 204)
        #expect(try world.app.request("GET", "/v1/integrations/slack", token: world.adminToken).status == 404)
    }
}
