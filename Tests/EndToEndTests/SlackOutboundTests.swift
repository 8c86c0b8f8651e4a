@testable import API
import Foundation
import Postgres
@testable import Slack
import Testing

/// Posts to a fake incoming webhook on 127.0.0.1 (scripts/slack_fake.py): pacing, Slack's
/// 429, the answers that pause the integration, `invalid_payload`, and the Block Kit body.
@Suite struct SlackOutboundTests {
    func createTask(_ world: SlackWorld, title: String) throws {
        let created = try world.app.request("POST", "/v1/tasks", token: world.adminToken, json: ["title": title, "priority": "high"])
        #expect(created.status == 201)
    }

    @Test func fivePostsArriveAtLeastAboutOneSecondApartAsValidBlockKit() throws {
        let world = try SlackWorld()
        let long = String(repeating: "Order photos <!channel> & more ", count: 16)
        for index in 1...4 { try createTask(world, title: "Task \(index)") }
        try createTask(world, title: long)
        let posts = world.fake.waitForRequests(5)
        try #require(posts.count == 5)
        for (earlier, later) in zip(posts, posts.dropFirst()) {
            #expect(later.received_at - earlier.received_at >= 0.9, "posts \(later.received_at - earlier.received_at) s apart")
        }
        for post in posts {
            #expect(post.path == "/services/T1DC2JH3J/B00000000/secretpart123")
            let message = try #require(try JSONSerialization.jsonObject(with: Data(post.body.utf8)) as? [String: Any])
            let blocks = try #require(message["blocks"] as? [[String: Any]])
            #expect(blocks.count <= 50)
            #expect(blocks.map { $0["type"] as? String } == ["header", "section", "context", "actions"])
            let header = try #require((blocks[0]["text"] as? [String: Any])?["text"] as? String)
            #expect(header.hasPrefix("New task: ") && header.count <= 150)
            #expect(((blocks[0]["text"] as? [String: Any])?["type"] as? String) == "plain_text")
            let fields = try #require(blocks[1]["fields"] as? [[String: Any]])
            #expect(fields.count <= 10)
            let texts = fields.compactMap { $0["text"] as? String }
            #expect(texts.allSatisfy { $0.count <= 2000 })
            #expect(texts.contains("*Priority*\nhigh") && texts.contains("*Listing*\nnone") && texts.contains("*Created by*\nAda Admin"))
            let button = try #require((blocks[3]["elements"] as? [[String: Any]])?.first)
            #expect((button["type"] as? String) == "button")
            #expect((button["url"] as? String)?.hasPrefix("https://dispatch.example/console/work/tasks/") == true)
            #expect(((message["text"] as? String)?.count ?? 0) <= 3000)
        }
        // The long title was cut to the header's 150 characters; mrkdwn text cannot ping the channel.
        let last = posts[4].body
        #expect(last.contains("…"))
        #expect(!last.contains("<!channel>") || !last.contains("\"mrkdwn\",\"text\":\"<!channel>"))
        // The fake records a post before the sender reads its answer and records it sent.
        #expect(try world.eventually { try world.count("SELECT count(*) FROM slack_outbox WHERE sent_at IS NOT NULL") == 5 })
    }

    @Test func rateLimitedAnswerRetryAfterIsHonoured() throws {
        let world = try SlackWorld(answers: ["429:rate_limited:2"])
        try createTask(world, title: "Rate limited once")
        let posts = world.fake.waitForRequests(2)
        try #require(posts.count == 2)
        #expect(posts[1].received_at - posts[0].received_at >= 1.9, "retried after \(posts[1].received_at - posts[0].received_at) s")
        #expect(posts[0].body == posts[1].body)
        #expect(try world.eventually { try world.count("SELECT count(*) FROM slack_outbox WHERE sent_at IS NOT NULL AND attempts = 2") == 1 })
    }

    @Test(arguments: ["410:channel_is_archived", "404:no_service", "403:action_prohibited", "404:channel_not_found"])
    func goneWebhookPausesTheIntegrationUntilItIsStoredAgain(answer: String) throws {
        let world = try SlackWorld(answers: [answer])
        try createTask(world, title: "First")
        #expect(world.fake.waitForRequests(1).count == 1)
        let reason = String(answer.split(separator: ":")[1])
        let paused = try world.eventually {
            let state = try world.app.request("GET", "/v1/integrations/slack", token: world.adminToken).json
            return state?["state"] as? String == "paused" && (state?["pause_reason"] as? String)?.contains(reason) == true
        }
        #expect(paused)
        try createTask(world, title: "Second")
        // Both posts wait (state, not time): the second is queued, nothing more was sent.
        #expect(try world.eventually { try world.count("SELECT count(*) FROM slack_outbox WHERE sent_at IS NULL AND dead_at IS NULL") == 2 })
        #expect(world.fake.requests().count == 1)
        // Storing the integration again resumes it: the backlog goes out.
        let resumed = try world.app.request("POST", "/v1/integrations/slack", token: world.adminToken, json: [
            "team_id": SlackWorld.team, "signing_secret": SlackWorld.secret, "incoming_webhook_url": world.webhookURL, "events": ["task.created"],
        ])
        #expect(resumed.status == 200)
        #expect(world.fake.waitForRequests(3).count == 3)
    }

    @Test func invalidPayloadMarksThePostDeadAtOnce() throws {
        let world = try SlackWorld(answers: ["400:invalid_payload"])
        try createTask(world, title: "Refused")
        #expect(try world.eventually { try world.count("SELECT count(*) FROM slack_outbox WHERE dead_at IS NOT NULL AND attempts = 1") == 1 })
        #expect(world.fake.requests().count == 1)
        #expect(world.slack.counts.withLock { $0.dead } == 1)
        // The integration is not paused: the next post goes out.
        try createTask(world, title: "Accepted")
        #expect(world.fake.waitForRequests(2).count == 2)
    }

    /// A row's timestamp is its transaction's start, so a write can commit after a scan already
    /// went past that time: the look-back still finds it, and a rolled-back write posts nothing.
    @Test func writeCommittedAfterTheScanPassedItsTimestampIsStillPostedAndARollbackNever() throws {
        let world = try SlackWorld()
        let pool = world.app.database.pool
        let admin = world.app.admin.id
        struct Rollback: Error {}
        func write(_ title: String, on connection: PostgresConnection) throws {
            let id = UUID()
            try connection.execute("INSERT INTO tasks (id, title, declared_by) VALUES (\(id), \(title), \(admin))")
            try connection.execute("""
                INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by)
                VALUES ('task', \(id), NULL, 'open', \(admin))
                """)
        }
        #expect(throws: Rollback.self) {
            try pool.withTransaction { connection in
                try write("Rolled back", on: connection)
                throw Rollback()
            }
        }
        try pool.withTransaction { connection in
            try write("Committed late", on: connection)
            let started: Date = try #require(try connection.query("SELECT now() AS t").first).decode("t")
            // Hold the commit until a scan has moved past this transaction's timestamp.
            let passed = try world.eventually {
                guard let row = try pool.query("SELECT scanned_through FROM slack_integration").first else { return false }
                return try row.decode("scanned_through", as: Date.self) > started.addingTimeInterval(1)
            }
            #expect(passed)
        }
        let posts = world.fake.waitForRequests(1)
        #expect(posts.count == 1)
        #expect(posts.first?.body.contains("Committed late") == true)
        #expect(try world.count("SELECT count(*) FROM slack_outbox") == 1)
    }
}
