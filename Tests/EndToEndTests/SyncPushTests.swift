import Foundation
import Store
import Testing

/// POST /v1/sync/push over real HTTP: results per mutation, idempotent replays, conflicts,
/// ordering, and one bad entry never blocking the rest.
@Suite struct SyncPushTests {
    /// A server with a signed-in admin and one realtor.
    struct Fixture {
        let app: AuthTestServer
        let admin: String
        let realtor: String
        let realtorID: String

        init(workerCount: Int = 4) throws {
            app = try AuthTestServer(workerCount: workerCount)
            admin = try app.login().access
            realtorID = try app.createRealtor("pusher@example.com", adminToken: admin)
            realtor = try app.login("pusher@example.com").access
        }

        func push(_ mutations: [[String: Any]], token: String? = nil) throws -> (status: Int, results: [[String: Any]]) {
            let response = try app.request("POST", "/v1/sync/push", token: token ?? realtor, json: ["mutations": mutations])
            return (response.status, response.json?["results"] as? [[String: Any]] ?? [])
        }

        func pushBody(_ mutations: [[String: Any]], token: String? = nil) throws -> [UInt8] {
            try app.request("POST", "/v1/sync/push", token: token ?? realtor, json: ["mutations": mutations]).body
        }
    }

    static func upsertTask(_ id: String, title: String, baseVersion: Int? = nil, mutationID: String = UUID().uuidString) -> [String: Any] {
        var mutation: [String: Any] = ["mutation_id": mutationID, "op": "upsert", "type": "task", "id": id,
                                       "record": ["title": title]]
        if let baseVersion { mutation["base_version"] = baseVersion }
        return mutation
    }

    @Test func upsertOfNewTaskIsAppliedAndItsReplayReturnsTheFirstResultWithoutApplyingAgain() throws {
        let fixture = try Fixture()
        let taskID = UUID().uuidString.lowercased()
        let mutation = Self.upsertTask(taskID, title: "Offline task")
        let first = try fixture.pushBody([mutation])
        let results = try #require((try JSONSerialization.jsonObject(with: Data(first)) as? [String: Any])?["results"] as? [[String: Any]])
        #expect(results.count == 1)
        #expect(results[0]["status"] as? String == "applied")
        let record = try #require(results[0]["record"] as? [String: Any])
        #expect(record["id"] as? String == taskID)
        #expect(record["declared_by"] as? String == fixture.realtorID)
        #expect(record["version"] as? Int == 1)

        // The replay carries a different title: were it applied, the version would move.
        var replay = mutation
        replay["record"] = ["title": "Changed on replay"]
        let second = try fixture.pushBody([replay])
        #expect(second == first)
        let row = try fixture.app.request("GET", "/v1/tasks/\(taskID)", token: fixture.realtor)
        #expect(row.json?["version"] as? Int == 1)
        #expect(row.json?["title"] as? String == "Offline task")
    }

    @Test func upsertWithStaleBaseVersionIsAConflictCarryingTheServerRow() throws {
        let fixture = try Fixture()
        let taskID = UUID().uuidString.lowercased()
        _ = try fixture.push([Self.upsertTask(taskID, title: "v1")])
        let edit = try fixture.push([Self.upsertTask(taskID, title: "v2", baseVersion: 1)])
        #expect(edit.results.first?["status"] as? String == "applied")
        let stale = try fixture.push([Self.upsertTask(taskID, title: "offline edit", baseVersion: 1)])
        let result = try #require(stale.results.first)
        #expect(result["status"] as? String == "conflict")
        let server = try #require(result["record"] as? [String: Any])
        #expect(server["version"] as? Int == 2)
        #expect(server["title"] as? String == "v2")
        #expect((result["error"] as? [String: Any])?["code"] as? String == "precondition_failed")
    }

    @Test func claimOfATaskHeldByAnotherUserIsAConflictNamingTheHolder() throws {
        let fixture = try Fixture()
        let taskID = UUID().uuidString.lowercased()
        _ = try fixture.push([Self.upsertTask(taskID, title: "Contested")])
        let adminClaim = try fixture.push([["mutation_id": UUID().uuidString, "op": "claim", "type": "task", "id": taskID]],
                                          token: fixture.admin)
        #expect(adminClaim.results.first?["status"] as? String == "applied")
        let claim = try fixture.push([["mutation_id": UUID().uuidString, "op": "claim", "type": "task", "id": taskID]])
        let result = try #require(claim.results.first)
        #expect(result["status"] as? String == "conflict")
        #expect((result["error"] as? [String: Any])?["code"] as? String == "claim_conflict")
        #expect((result["record"] as? [String: Any])?["claimed_by"] as? String == fixture.app.admin.id.uuidString.lowercased())
    }

    @Test func mutationsApplyInOrderAndABadEntryNeverBlocksTheRest() throws {
        let fixture = try Fixture()
        let taskID = UUID().uuidString.lowercased()
        let push = try fixture.push([
            ["op": "upsert", "type": "task"],                                        // no mutation_id, no id
            Self.upsertTask(taskID, title: "Queued"),
            ["mutation_id": UUID().uuidString, "op": "claim", "type": "task", "id": taskID],
            ["mutation_id": UUID().uuidString, "op": "upsert", "type": "task", "id": taskID, "record": ["priority": "someday"]],
            ["mutation_id": UUID().uuidString, "op": "delete", "type": "task", "id": UUID().uuidString],
            ["mutation_id": UUID().uuidString, "op": "release", "type": "task", "id": taskID],
            ["mutation_id": UUID().uuidString, "op": "claim", "type": "note", "id": taskID],
        ])
        #expect(push.status == 200)
        #expect(push.results.map { $0["status"] as? String } ==
            ["rejected", "applied", "applied", "rejected", "rejected", "applied", "rejected"])
        #expect((push.results[0]["error"] as? [String: Any])?["code"] as? String == "validation_failed")
        #expect((push.results[3]["error"] as? [String: Any])?["code"] as? String == "validation_failed")
        #expect((push.results[4]["error"] as? [String: Any])?["code"] as? String == "not_found")
        #expect((push.results[2]["record"] as? [String: Any])?["claimed_by"] as? String == fixture.realtorID)
        let events = try fixture.app.request("GET", "/v1/tasks/\(taskID)/claim-events", token: fixture.realtor)
        #expect((events.json?["items"] as? [Any])?.count == 2)
    }

    @Test func mutationIDsArePerUserSoAnotherUsersIdenticalIDIsApplied() throws {
        let fixture = try Fixture()
        let shared = UUID().uuidString
        let mine = UUID().uuidString.lowercased()
        let theirs = UUID().uuidString.lowercased()
        let first = try fixture.push([Self.upsertTask(mine, title: "Mine", mutationID: shared)])
        let second = try fixture.push([Self.upsertTask(theirs, title: "Theirs", mutationID: shared)], token: fixture.admin)
        #expect(first.results.first?["status"] as? String == "applied")
        #expect(second.results.first?["status"] as? String == "applied")
        #expect((second.results.first?["record"] as? [String: Any])?["id"] as? String == theirs)
    }

    @Test func noteUpsertCreatesThenEditsThroughTheNoteRoutes() throws {
        let fixture = try Fixture()
        let taskID = UUID().uuidString.lowercased()
        let noteID = UUID().uuidString.lowercased()
        _ = try fixture.push([Self.upsertTask(taskID, title: "Has notes")])
        let create = try fixture.push([["mutation_id": UUID().uuidString, "op": "upsert", "type": "note", "id": noteID,
                                        "record": ["parent_type": "task", "parent_id": taskID, "content": "first"]]])
        #expect(create.results.first?["status"] as? String == "applied")
        let edit = try fixture.push([["mutation_id": UUID().uuidString, "op": "upsert", "type": "note", "id": noteID,
                                      "record": ["content": "second"], "base_version": 1]])
        let record = try #require(edit.results.first?["record"] as? [String: Any])
        #expect(edit.results.first?["status"] as? String == "applied")
        #expect(record["content"] as? String == "second")
        #expect(record["edited_by"] as? String == fixture.realtorID)
    }

    @Test(arguments: [
        (#"{"mutations": {}}"#, 422, "validation_failed"),
        (#"{"mutations": [], "extra": 1}"#, 422, "validation_failed"),
        (#"{"mutations": ["#, 400, "invalid_json"),
    ])
    func malformedPushBodiesAreRefusedWhole(_ body: String, status: Int, code: String) throws {
        let fixture = try Fixture()
        let response = try fixture.app.request("POST", "/v1/sync/push", token: fixture.realtor, body: Array(body.utf8),
                                               headers: ["Content-Type": "application/json"])
        #expect(response.status == status)
        #expect(response.json?["code"] as? String == code)
    }

    @Test func moreThanTheMaximumNumberOfMutationsIsRefused() throws {
        let fixture = try Fixture()
        let mutations = (0...500).map { _ in Self.upsertTask(UUID().uuidString, title: "x") }
        let response = try fixture.app.request("POST", "/v1/sync/push", token: fixture.realtor, json: ["mutations": mutations])
        #expect(response.status == 422)
    }

    @Test func pruningForgetsOnlyResultsOlderThanTheRetention() throws {
        let fixture = try Fixture()
        let pool = fixture.app.database.pool
        let log = MutationLog(pool: pool)
        let user = fixture.app.admin.id
        let old = UUID(), recent = UUID()
        func claim(_ id: UUID) throws -> MutationLog.Claim {
            try pool.withTransaction { connection in
                let claim = try log.claim(userID: user, mutationID: id, on: connection)
                if claim == .claimed { try log.record(userID: user, mutationID: id, result: "{}", on: connection) }
                return claim
            }
        }
        for id in [old, recent] {
            #expect(try claim(id) == .claimed)
        }
        try pool.execute("UPDATE sync_mutations SET created_at = now() - interval '31 days' WHERE mutation_id = \(old)")
        #expect(try log.prune(olderThanDays: 30) == 1)
        #expect(try claim(old) == .claimed)
        #expect(try claim(recent) == .replay(result: "{}"))
    }
}
