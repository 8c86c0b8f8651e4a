import Foundation
import Testing

/// Like `SyncConvergenceTests`, but every write goes through the public API as a real user
/// (three realtors and an admin): creates by POST and PUT, PATCH edits, status changes,
/// claims and releases, listing reassignments, moves between listings, soft deletes, notes,
/// subtasks and offline batches through `POST /v1/sync/push`. Meanwhile clients sync in a
/// loop with random page sizes; afterwards each does one more chain and its replica must equal
/// exactly what the database says that user may see (contract §2 via `Store.Visibility`).
@Suite struct SyncAPIConvergenceTests {
    typealias SplitMix = SyncConvergenceTests.SplitMix

    static let operationsPerWriter = 80
    static let workTables = ["tasks", "activities"]

    /// Ids of every row any writer created or tried to create, so writers act on each
    /// other's rows (and on rows they cannot see, which must answer 403/404, not 5xx).
    final class Known: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String: [String]] = [:]
        func add(_ table: String, _ id: String) { lock.withLock { ids[table, default: []].append(id) } }
        func pick(_ table: String, using random: inout SplitMix) -> String? {
            lock.withLock { ids[table]?.randomElement(using: &random) }
        }
    }

    /// A writer: a signed-in user and the server it writes to.
    struct Writer {
        let server: any SyncEndpoint
        let member: SyncTestServer.Member
        let people: [String]
        let known: Known

        func send(_ method: String, _ path: String, _ json: [String: Any]? = nil) throws -> Int {
            var headers = ["Authorization": "Bearer \(member.token)"]
            var body: [UInt8] = []
            if let json {
                body = Array(try JSONSerialization.data(withJSONObject: json))
                headers["Content-Type"] = "application/json"
            }
            let response = try server.perform(method: method, path: path, headers: headers, body: body)
            // Refusals (403/404/409/412/422) are expected between racing users; a 5xx never is.
            guard response.status < 500 else {
                throw AuthTestError.unexpected(response.status, "\(method) \(path): \(String(decoding: response.body, as: UTF8.self))")
            }
            return response.status
        }

        /// Case numbers of `randomWrite`, repeated by weight: creates and claims often enough
        /// that there is plenty to edit, move, revoke and delete.
        static let weightedChoices = [0, 0, 1, 2, 2, 2, 3, 3, 3, 4, 5, 6, 6, 6, 7, 7, 8, 8, 9, 10, 10, 11, 12, 12, 13, 14, 14, 15, 16, 16]

        static func newID() -> String { UUID().uuidString.lowercased() }

        func someone(_ random: inout SplitMix) -> String { people.randomElement(using: &random) ?? member.key }

        /// One random write; returns its status.
        @discardableResult
        func randomWrite(_ random: inout SplitMix) throws -> Int {
            let table = workTables.randomElement(using: &random) ?? "tasks"
            let parentType = table == "tasks" ? "task" : "activity"
            let listing = known.pick("listings", using: &random)
            let item = known.pick(table, using: &random)
            switch Self.weightedChoices.randomElement(using: &random) ?? 0 {
            case 0:
                var body: [String: Any] = ["address": "\(Int.random(in: 1...999, using: &random)) Elm St"]
                if Bool.random(using: &random) { body["assigned_staff"] = someone(&random) }
                if let created = try created("listings", "POST", "/v1/listings", body) { return created }
            case 1:
                let id = Self.newID()
                known.add("listings", id)
                return try send("PUT", "/v1/listings/\(id)", ["address": "1 PUT Way"])
            case 2, 3:
                var body: [String: Any] = ["title": "new \(parentType)"]
                if let listing, Int.random(in: 0..<10, using: &random) < 7 { body["listing_id"] = listing }
                if Bool.random(using: &random) {
                    let id = Self.newID()
                    known.add(table, id)
                    return try send("PUT", "/v1/\(table)/\(id)", body)
                }
                if let created = try created(table, "POST", "/v1/\(table)", body) { return created }
            case 4:
                if let item { return try send("PATCH", "/v1/\(table)/\(item)", ["title": "edited \(Int.random(in: 0...99, using: &random))"]) }
            case 5:
                let status = ["open", "in_progress", "completed"].randomElement(using: &random) ?? "open"
                if let item { return try send("PATCH", "/v1/\(table)/\(item)", ["status": status]) }
            case 6:
                if let item { return try send("POST", "/v1/\(table)/\(item)/claim") }
            case 7:
                if let item { return try send("DELETE", "/v1/\(table)/\(item)/claim") }
            case 8:
                if let listing { return try send("PATCH", "/v1/listings/\(listing)", ["assigned_staff": Bool.random(using: &random) ? someone(&random) : NSNull()]) }
            case 9:
                if let listing { return try send("PATCH", "/v1/listings/\(listing)", ["owned_by": someone(&random)]) }
            case 10:
                if let item { return try send("PATCH", "/v1/\(table)/\(item)", ["listing_id": listing.map { $0 as Any } ?? NSNull()]) }
            case 11:
                if let item, Int.random(in: 0..<3, using: &random) > 0 { return try send("DELETE", "/v1/\(table)/\(item)") }
                if let listing { return try send("DELETE", "/v1/listings/\(listing)") }
            case 12:
                if let item, let created = try created("notes", "POST", "/v1/notes",
                                                       ["parent_type": parentType, "parent_id": item, "content": "a note"]) { return created }
            case 13:
                if let note = known.pick("notes", using: &random) {
                    if Bool.random(using: &random) { return try send("DELETE", "/v1/notes/\(note)") }
                    return try send("PATCH", "/v1/notes/\(note)", ["content": "edited note"])
                }
            case 14:
                if let item, let created = try created("subtasks", "POST", "/v1/subtasks",
                                                       ["parent_type": parentType, "parent_id": item, "title": "a step"]) { return created }
            case 15:
                if let subtask = known.pick("subtasks", using: &random) {
                    if Bool.random(using: &random) { return try send("DELETE", "/v1/subtasks/\(subtask)") }
                    return try send("PATCH", "/v1/subtasks/\(subtask)", ["title": "edited step"])
                }
            default:
                return try push(table: table, item: item, listing: listing, &random)
            }
            return 0
        }

        /// A create whose id the server picks; remembered for later writes.
        private func created(_ table: String, _ method: String, _ path: String, _ body: [String: Any]) throws -> Int? {
            let headers = ["Authorization": "Bearer \(member.token)", "Content-Type": "application/json"]
            let response = try server.perform(method: method, path: path, headers: headers,
                                              body: Array(try JSONSerialization.data(withJSONObject: body)))
            guard response.status < 500 else {
                throw AuthTestError.unexpected(response.status, "\(method) \(path): \(String(decoding: response.body, as: UTF8.self))")
            }
            if let id = response.json?["id"] as? String { known.add(table, id) }
            return response.status
        }

        /// An offline batch: a new item, an edit, a claim or release, maybe a delete and a note.
        private func push(table: String, item: String?, listing: String?, _ random: inout SplitMix) throws -> Int {
            let type = table == "tasks" ? "task" : "activity"
            let fresh = Self.newID()
            known.add(table, fresh)
            var record: [String: Any] = ["title": "pushed"]
            if let listing, Bool.random(using: &random) { record["listing_id"] = listing }
            var mutations: [[String: Any]] = [
                ["mutation_id": Self.newID(), "op": "upsert", "type": type, "id": fresh, "record": record],
            ]
            if let item {
                mutations.append(["mutation_id": Self.newID(), "op": "upsert", "type": type, "id": item, "record": ["title": "pushed edit"]])
                mutations.append(["mutation_id": Self.newID(), "op": Bool.random(using: &random) ? "claim" : "release", "type": type, "id": item])
                let note = Self.newID()
                known.add("notes", note)
                mutations.append(["mutation_id": Self.newID(), "op": "upsert", "type": "note", "id": note,
                                  "record": ["parent_type": type, "parent_id": item, "content": "offline note"]])
                if Int.random(in: 0..<4, using: &random) == 0 {
                    mutations.append(["mutation_id": Self.newID(), "op": "delete", "type": type, "id": item])
                }
            }
            return try send("POST", "/v1/sync/push", ["mutations": mutations])
        }
    }

    @Test func clientsSyncingDuringConcurrentAPIWritesConvergeToWhatTheyMaySee() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        let server = try SyncTestServer()
        let admin = try server.member("ada", admin: true)
        let realtors = [try server.member("a"), try server.member("b"), try server.member("c"), try server.member("d")]
        let people = realtors.map(\.key)
        let known = Known()
        // A starting scene made through the API too: each writer's own listing and task.
        let writers = (realtors.prefix(3) + [admin]).map { Writer(server: server, member: $0, people: people, known: known) }
        var setup = SplitMix(state: seed)
        for writer in writers {
            for kind in ["listing", "task", "task"] { try writer.setupWrite(kind, &setup) }
        }

        let outcome = SyncRaceTests.Outcome()
        let writersDone = DispatchGroup(), clientsDone = DispatchGroup()
        let finished = SyncConvergenceTests.Flag()
        let successes = Counter()
        for (index, writer) in writers.enumerated() {
            writersDone.enter()
            Thread.detachNewThread {
                var random = SplitMix(state: seed &+ 1 &+ UInt64(index))
                for _ in 0..<Self.operationsPerWriter {
                    do {
                        let status = try writer.randomWrite(&random)
                        if (200..<300).contains(status) { successes.increment() }
                    } catch { outcome.fail(error) }
                }
                writersDone.leave()
            }
        }
        // Clients: two writing realtors, one who only ever gets listings assigned, and the admin.
        let clients = [realtors[0], realtors[1], realtors[3], admin]
        let replicas = SyncConvergenceTests.startSyncingClients(clients, server: server, seed: seed, maximumLimit: 12,
                                                                until: finished, group: clientsDone, outcome: outcome)
        #expect(writersDone.wait(timeout: .now() + 240) == .success)
        finished.set()
        #expect(clientsDone.wait(timeout: .now() + 240) == .success)
        #expect(outcome.failures.isEmpty, "seed \(seed): \(outcome.failures.prefix(5))")
        // Most writes must have been accepted, or the test exercised only refusals.
        #expect(successes.value > writers.count * Self.operationsPerWriter / 3, "seed \(seed)")

        for (index, client) in clients.enumerated() {
            var replica = replicas.get(index)
            try replica.syncToEnd(server, as: client) { 7 }
            let expected = try server.expectedState(for: client, admin: client.id == admin.id)
            let differences = SyncReplica.differences(replica.state, expected)
            #expect(differences.isEmpty, "client \(index), seed \(seed): \(differences.prefix(20))")
            #expect(replica.orphans.isEmpty, "client \(index), seed \(seed): \(replica.orphans.prefix(5))")
            #expect(replica.pages > 1)
        }
        let adminState = try server.expectedState(for: admin, admin: true)
        for table in ["listings", "tasks", "activities", "notes", "subtasks", "claim_events", "status_changes"] {
            #expect(!(adminState[table] ?? [:]).isEmpty, "no \(table) written, seed \(seed)")
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}

extension SyncAPIConvergenceTests.Writer {
    /// A deterministic setup write: a listing of one's own, or a task on a known listing.
    func setupWrite(_ kind: String, _ random: inout SyncAPIConvergenceTests.SplitMix) throws {
        if kind == "listing" {
            let id = Self.newID()
            known.add("listings", id)
            _ = try send("PUT", "/v1/listings/\(id)", ["address": "setup"])
            return
        }
        var body: [String: Any] = ["title": "setup"]
        if let listing = known.pick("listings", using: &random) { body["listing_id"] = listing }
        let id = Self.newID()
        known.add("tasks", id)
        _ = try send("PUT", "/v1/tasks/\(id)", body)
    }
}
