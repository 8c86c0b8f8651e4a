import Foundation
import Postgres
import Testing

/// A grant must carry what it grants at the moment it happens. A device that syncs
/// only after "gained, then moved / reassigned / released" must still receive the rows'
/// older children (notes, subtasks, claim events, status changes).
@Suite struct SyncGrantTests {
    /// One API call as `member`; the JSON answer, or a failure naming the status.
    static func call(_ server: SyncTestServer, _ member: SyncTestServer.Member, _ method: String, _ path: String,
                     _ body: [String: Any]) throws -> [String: Any] {
        let response = try server.client.perform(
            method: method, path: path,
            headers: ["Authorization": "Bearer \(member.token)", "Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
        guard (200..<300).contains(response.status), let json = response.json else {
            throw AuthTestError.unexpected(response.status, "\(method) \(path): \(String(decoding: response.body, as: UTF8.self))")
        }
        return json
    }

    @Test func staffGainedThenTaskMovedAwayBringsTheTasksOlderChildren() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), sam = try server.member("sam")
        let first = try #require(try Self.call(server, rita, "POST", "/v1/listings", ["address": "1 Rita Rd"])["id"] as? String)
        let task = try #require(try Self.call(server, rita, "POST", "/v1/tasks", ["title": "T", "listing_id": first])["id"] as? String)
        let note = try #require(try Self.call(server, rita, "POST", "/v1/notes",
                                              ["parent_type": "task", "parent_id": task, "content": "N"])["id"] as? String)
        let second = try #require(try Self.call(server, sam, "POST", "/v1/listings", ["address": "2 Sam St"])["id"] as? String)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: sam)
        #expect(!replica.ids("tasks").contains(task))

        _ = try Self.call(server, rita, "PATCH", "/v1/listings/\(first)", ["assigned_staff": sam.key])
        _ = try Self.call(server, sam, "PATCH", "/v1/tasks/\(task)", ["listing_id": second])
        try replica.syncToEnd(server, as: sam)

        #expect(replica.ids("tasks").contains(task))
        #expect(replica.ids("notes").contains(note))
        #expect(replica.rows["status_changes"]?.values.contains { $0["entity_id"] as? String == task } == true)
        #expect(SyncReplica.differences(replica.state, try server.expectedState(for: sam)) == [])
        #expect(replica.orphans.isEmpty, "\(replica.orphans)")
    }

    enum Gain: CaseIterable { case staff, ownership, claim }
    enum Then: CaseIterable { case move, reassignment, release }

    @Test(arguments: Gain.allCases, Then.allCases)
    func gainFollowedByAChangeBeforeTheDeviceSyncsConverges(gain: Gain, then: Then) throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), sam = try server.member("sam"), otto = try server.member("otto")
        let first = try server.listing(owner: rita)
        let second = try server.listing(owner: sam)
        let task = try server.task(by: rita, on: first)
        let note = try server.note(on: "task", task, by: rita)
        _ = try server.subtask(on: "task", task)
        try server.execute("INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id) VALUES ('task', \(task), \(otto.id), 'claimed', \(otto.id))")
        try server.execute("INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by) VALUES ('task', \(task), 'open', \(rita.id))")
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: sam)
        #expect(replica.ids("notes").isEmpty)

        switch gain {
        case .staff: try server.execute("UPDATE listings SET assigned_staff = \(sam.id) WHERE id = \(first)")
        case .ownership: try server.execute("UPDATE listings SET owned_by = \(sam.id) WHERE id = \(first)")
        case .claim: try server.execute("UPDATE tasks SET claimed_by = \(sam.id), claimed_at = now() WHERE id = \(task)")
        }
        switch then {
        case .move:
            try server.execute("UPDATE tasks SET listing_id = \(second) WHERE id = \(task)")
        case .reassignment:
            // The listing goes to Otto; Sam keeps the task only if he claimed it.
            try server.execute("UPDATE listings SET owned_by = \(otto.id), assigned_staff = NULL WHERE id = \(first)")
        case .release:
            // A claim by Sam (if not his already) and its release.
            try server.execute("UPDATE tasks SET claimed_by = \(sam.id), claimed_at = now() WHERE id = \(task)")
            if gain != .claim { try server.execute("UPDATE tasks SET listing_id = \(second) WHERE id = \(task)") }
            try server.execute("UPDATE tasks SET claimed_by = NULL, claimed_at = NULL WHERE id = \(task)")
        }
        try replica.syncToEnd(server, as: sam) { 2 }

        let expected = try server.expectedState(for: sam)
        #expect(SyncReplica.differences(replica.state, expected) == [])
        #expect(replica.orphans.isEmpty, "\(replica.orphans)")
        // The interesting half: where Sam still sees the task, he has its older children.
        if expected["tasks"]?[task.lowercased] != nil {
            #expect(replica.ids("notes").contains(note.lowercased))
            #expect(replica.ids("subtasks").count == 1 && replica.ids("claim_events").count == 1)
        }
    }

    /// Random grants, reassignments, claims, releases and moves between two syncs; after every
    /// round each device's replica equals a fresh snapshot for its user.
    @Test func randomGrantsAndMovesBetweenSyncsAlwaysMatchAFreshSnapshot() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SyncConvergenceTests.SplitMix(state: seed)
        let server = try SyncTestServer()
        let people = [try server.member("rita"), try server.member("sam"), try server.member("otto")]
        var listings: [UUID] = []
        for index in 0..<4 { listings.append(try server.listing(owner: people[index % 3])) }
        var items: [(table: String, id: UUID)] = []
        for index in 0..<8 {
            let table = index % 3 == 2 ? "activities" : "tasks"
            let id = try server.task(by: people[index % 3], on: listings[index % 4], table: table)
            let type = table == "tasks" ? "task" : "activity"
            _ = try server.note(on: type, id, by: people[index % 3])
            _ = try server.subtask(on: type, id)
            try server.execute("INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by) VALUES (\(type), \(id), 'open', \(people[0].id))")
            items.append((table, id))
        }
        var replicas = people.map { _ in SyncReplica() }
        for index in people.indices { try replicas[index].syncToEnd(server, as: people[index]) }

        for round in 0..<60 {
            for _ in 0..<Int.random(in: 2...8, using: &random) {
                let person = people.randomElement(using: &random) ?? people[0]
                let listing = listings.randomElement(using: &random) ?? listings[0]
                let item = items.randomElement(using: &random) ?? items[0]
                switch Int.random(in: 0..<7, using: &random) {
                case 5, 6:
                    // The pattern a grant must survive: someone gains a listing, then one of its items
                    // moves to a listing they already see.
                    let column = Bool.random(using: &random) ? "assigned_staff" : "owned_by"
                    try server.execute("UPDATE listings SET \(unsafeSQL: column) = \(person.id) WHERE id = \(listing)")
                    try server.execute("""
                        UPDATE \(unsafeSQL: item.table) SET listing_id = (SELECT id FROM listings WHERE id <> \(listing)
                            AND (owned_by = \(person.id) OR assigned_staff = \(person.id)) ORDER BY random() LIMIT 1)
                        WHERE id = (SELECT id FROM \(unsafeSQL: item.table) WHERE listing_id = \(listing) ORDER BY random() LIMIT 1)
                          AND EXISTS (SELECT 1 FROM listings WHERE id <> \(listing) AND (owned_by = \(person.id) OR assigned_staff = \(person.id)))
                        """)
                case 0: try server.execute("UPDATE listings SET assigned_staff = \(Bool.random(using: &random) ? person.id : nil) WHERE id = \(listing)")
                case 1: try server.execute("UPDATE listings SET owned_by = \(person.id) WHERE id = \(listing)")
                case 2: try server.execute("UPDATE \(unsafeSQL: item.table) SET claimed_by = \(person.id), claimed_at = now() WHERE id = \(item.id)")
                case 3: try server.execute("UPDATE \(unsafeSQL: item.table) SET claimed_by = NULL, claimed_at = NULL WHERE id = \(item.id)")
                default:
                    let target: UUID? = Int.random(in: 0..<5, using: &random) == 0 ? nil : listing
                    try server.execute("UPDATE \(unsafeSQL: item.table) SET listing_id = \(target) WHERE id = \(item.id)")
                }
            }
            for index in people.indices {
                try replicas[index].syncToEnd(server, as: people[index]) { Int.random(in: 1...6, using: &random) }
                let differences = SyncReplica.differences(replicas[index].state, try server.expectedState(for: people[index]))
                #expect(differences.isEmpty, "round \(round), user \(index), seed \(seed): \(differences)")
                #expect(replicas[index].orphans.isEmpty, "round \(round), user \(index), seed \(seed): \(replicas[index].orphans)")
                if !differences.isEmpty || !replicas[index].orphans.isEmpty { return }
            }
        }
    }
}
