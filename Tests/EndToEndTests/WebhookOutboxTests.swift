import Foundation
import Postgres
import Store
import Synchronization
import Testing

/// The event outbox: written by the database in the transaction of the write, whatever path
/// made it; one event per committed change, none for a rolled-back one, none without a
/// subscriber.
@Suite struct WebhookOutboxTests {
    @Test func aRolledBackWriteLeavesNoEventAndACommittedOneLeavesExactlyOne() throws {
        let world = try WebhookWorld()
        let pool = world.app.database.pool
        let admin = world.app.admin.id
        struct Abort: Error {}
        // Without a subscriber, a write leaves nothing.
        try pool.execute("INSERT INTO tasks (title, declared_by) VALUES ('unobserved', \(admin))")
        #expect(try world.scalar("SELECT count(DISTINCT event_id)::text FROM webhook_deliveries") == "0")

        try world.createEndpoint(url: "https://hooks.example.com/in", events: ["task.created"])
        #expect(throws: Abort.self) {
            try pool.withTransaction { connection in
                try connection.execute("INSERT INTO tasks (title, declared_by) VALUES ('rolled back', \(admin))")
                throw Abort()
            }
        }
        #expect(try world.scalar("SELECT count(DISTINCT event_id)::text FROM webhook_deliveries") == "0")
        #expect(try world.scalar("SELECT count(*)::text FROM webhook_deliveries") == "0")
        _ = try pool.withTransaction { connection in
            try connection.execute("INSERT INTO tasks (title, declared_by) VALUES ('committed', \(admin))")
        }
        #expect(try world.scalar("SELECT count(DISTINCT event_id)::text FROM webhook_deliveries") == "1")
        #expect(try world.scalar("SELECT count(*)::text FROM webhook_deliveries") == "1")
        #expect(try world.scalar("SELECT payload::json -> 'data' ->> 'title' FROM webhook_deliveries") == "committed")
    }

    @Test func eachWriteNamesItsEventWithActorAndPreviousStatus() throws {
        let world = try WebhookWorld()
        let app = world.app
        try world.createEndpoint(url: "https://hooks.example.com/in", events: ["*"])
        let task = try world.createTask()
        let kept = try app.request("POST", "/v1/notes", token: world.admin,
                                   json: ["content": "first", "parent_type": "task", "parent_id": task])
        let keptID = try #require(kept.json?["id"] as? String)
        #expect(try app.request("PATCH", "/v1/notes/\(keptID)", token: world.admin, json: ["content": "second"]).status == 200)
        #expect(try app.request("POST", "/v1/tasks/\(task)/claim", token: world.admin).status == 200)
        #expect(try app.request("DELETE", "/v1/tasks/\(task)/claim", token: world.admin).status == 200)
        #expect(try app.request("PATCH", "/v1/tasks/\(task)", token: world.admin, json: ["status": "in_progress"]).status == 200)
        #expect(try app.request("DELETE", "/v1/tasks/\(task)", token: world.admin).status < 300)
        let note = try app.request("POST", "/v1/notes", token: world.admin,
                                   json: ["content": "hi", "parent_type": "listing", "parent_id": UUID().uuidString.lowercased()])
        let rows = try app.database.pool.query("SELECT type, payload FROM webhook_deliveries ORDER BY created_at, id")
        var events: [(type: String, payload: [String: Any])] = []
        for row in rows {
            let payload = try JSONSerialization.jsonObject(with: Data(try row.decode("payload", as: String.self).utf8)) as? [String: Any]
            events.append((try row.decode("type"), payload ?? [:]))
        }
        let types = events.map(\.type)
        #expect(Set(types).isSuperset(of: ["task.created", "task.claimed", "task.released", "task.updated", "task.deleted"]), "\(types)")
        let adminID = app.admin.id.uuidString.lowercased()
        #expect(events.first { $0.type == "task.claimed" }?.payload["actor"] as? String == adminID)
        #expect(events.first { $0.type == "task.released" }?.payload["actor"] as? String == adminID)
        // The author where the row names one: the declarer of a task, the writer and the editor of a note.
        for type in ["task.created", "note.created", "note.updated"] {
            #expect(events.first { $0.type == type }?.payload["actor"] as? String == adminID, "\(type) names no actor")
        }
        #expect(events.first { $0.type == "task.updated" }?.payload["actor"] == nil)
        let updated = events.first { $0.type == "task.updated" }?.payload
        #expect(updated?["previous_status"] as? String == "open")
        #expect((updated?["data"] as? [String: Any])?["status"] as? String == "in_progress")
        let deleted = events.first { $0.type == "task.deleted" }?.payload
        #expect(deleted?["previous_status"] as? String == "in_progress")
        // A refused write (no such parent) leaves no event.
        #expect(note.status == 422 && types.filter { $0 == "note.created" }.count == 1)
        // Versions let receivers discard stale events: they rise with each change.
        let versions = events.filter { $0.type.hasPrefix("task.") }.compactMap { ($0.payload["data"] as? [String: Any])?["version"] as? Int }
        #expect(versions == versions.sorted() && Set(versions).count == versions.count)
    }

    /// No delivery outlives its endpoint, with no foreign key to enforce it: an endpoint
    /// deleted while a write that subscribed it is still open waits for that write, and the
    /// write's delivery goes with the endpoint. An event lives in its deliveries (one per
    /// subscribed endpoint, sharing the event id and the payload).
    @Test func anEndpointDeletedDuringAWriteTakesThatWritesDeliveryWithIt() throws {
        let world = try WebhookWorld()
        let pool = world.app.database.pool
        let admin = world.app.admin.id
        let doomed = try #require(UUID(uuidString: try world.createEndpoint(url: "https://hooks.example.com/doomed").id))
        try world.createEndpoint(url: "https://hooks.example.com/kept")
        let deleted = Mutex<Int?>(nil)
        let group = DispatchGroup()
        _ = try pool.withTransaction { connection -> Bool in
            try connection.execute("INSERT INTO tasks (title, declared_by) VALUES ('in flight', \(admin))")
            group.enter()
            Thread {
                let count = try? pool.execute("DELETE FROM webhook_endpoints WHERE id = \(doomed)")
                deleted.withLock { $0 = count ?? -1 }
                group.leave()
            }.start()
            // Until the deletion waits for this transaction, or has finished without waiting.
            #expect(try world.wait {
                try world.scalar("""
                    SELECT count(*)::text FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                    """) != "0" || deleted.withLock { $0 } != nil
            })
            return true
        }
        group.wait()
        #expect(deleted.withLock { $0 } == 1)
        #expect(try world.scalar("""
            SELECT string_agg(coalesce(e.url, 'no endpoint'), ',') FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
            """) == "https://hooks.example.com/kept")

        // An event subscribed by several endpoints: one delivery each, the one webhook-id and
        // the same payload bytes in every one.
        try world.createEndpoint(url: "https://hooks.example.com/also")
        try world.createTask("second")
        #expect(try world.scalar("""
            SELECT count(*) || ' deliveries, ' || count(DISTINCT event_id) || ' id, ' || count(DISTINCT payload) || ' payload'
            FROM webhook_deliveries WHERE payload::json -> 'data' ->> 'title' = 'second'
            """) == "2 deliveries, 1 id, 1 payload")
    }

    /// During a rolling upgrade the release before this one still runs against the new
    /// schema: its replay copies only a delivery's endpoint and event id, its sender reads the
    /// payload from `webhook_events`, its prune deletes from it. Each still works, and this
    /// release sends and lists the old release's replay with its event's type and bytes.
    @Test func theReleaseBeforeReplaysReadsAndPrunesAgainstTheNewSchema() throws {
        let world = try WebhookWorld()
        let pool = world.app.database.pool
        try world.createEndpoint(url: "https://hooks.example.com/in", events: ["*"])
        try world.createTask("replayed")
        let original: UUID = try #require(try pool.query("SELECT id FROM webhook_deliveries").first?.decode("id"))
        // The release before's statements, as it sends them.
        try pool.execute("""
            INSERT INTO webhook_deliveries (endpoint_id, event_id)
            SELECT endpoint_id, event_id FROM webhook_deliveries WHERE id = \(original)
            """)
        #expect(try world.scalar("""
            SELECT count(DISTINCT (SELECT ev.payload FROM webhook_events ev WHERE ev.id = d.event_id))::text
            FROM webhook_deliveries d
            """) == "1")
        try pool.execute("DELETE FROM webhook_events ev WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)")
        let claimed = try WebhookDeliveryQueue(pool: pool).claim(limit: 10, lease: .seconds(60))
        #expect(claimed.count == 2 && Set(claimed.map(\.eventID)).count == 1 && Set(claimed.map(\.payload)).count == 1)
        let body = try JSONSerialization.jsonObject(with: Data(try #require(claimed.first).payload.utf8)) as? [String: Any]
        #expect((body?["data"] as? [String: Any])?["title"] as? String == "replayed")
        let endpoint = try #require(claimed.first?.endpointID)
        let listed = try WebhookDeliveryStore(pool: pool).list(endpointID: endpoint, status: nil, limit: 10)
        #expect(listed.map(\.eventType) == ["task.created", "task.created"])
    }
}
