import Foundation
import Testing

/// What `POST /rest/v1/rpc/…` refuses before touching a row, in PostgREST's codes: the function
/// is found by its name and parameter names (404 `PGRST202` with the right signature in the
/// hint), the body must be one JSON object (`PGRST102`), the value a uuid (`22P02`).
@Suite struct RestRPCErrorTests {
    static let task = "6f1c1a2e-2b7d-4c55-9b51-3f1f2f9a0c11"

    @Test(arguments: [
        ("claim_tasks", "{\"task_id\":\"\(task)\"}", "application/json", 404, "PGRST202"),
        ("claim_task", "{}", "application/json", 404, "PGRST202"),
        ("claim_task", "", "application/json", 404, "PGRST202"),
        ("claim_task", "{\"activity_id\":\"\(task)\"}", "application/json", 404, "PGRST202"),
        ("claim_task", "{\"task_id\":\"\(task)\",\"force\":true}", "application/json", 404, "PGRST202"),
        ("claim_task", "{\"task_id\":\"not-a-uuid\"}", "application/json", 400, "22P02"),
        ("release_activity", "{\"activity_id\":42}", "application/json", 400, "22P02"),
        ("claim_task", "{\"task_id\":null}", "application/json", 400, "22004"),
        ("claim_task", "[{\"task_id\":\"\(task)\"}]", "application/json", 400, "PGRST102"),
        ("claim_task", "{\"task_id\":", "application/json", 400, "PGRST102"),
        ("claim_task", "{\"task_id\":\"\(task)\",\"task_id\":\"\(task)\"}", "application/json", 400, "PGRST102"),
        ("claim_task", "task_id=\(task)", "application/x-www-form-urlencoded", 415, "PGRST107"),
    ] as [(String, String, String, Int, String)])
    func badCallsAnswerPostgRESTErrors(_ function: String, _ body: String, _ type: String, _ status: Int, _ code: String) throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        let response = try world.app.request("POST", "/rest/v1/rpc/\(function)", token: world.token(.owner),
                                             body: Array(body.utf8),
                                             headers: ["apikey": AuthTestServer.publishableKey, "Content-Type": type])
        #expect(response.status == status, "\(function) \(body): \(String(decoding: response.body, as: UTF8.self))")
        #expect(response.json?["code"] as? String == code, "\(function) \(body)")
        #expect(response.json?["message"] is String)
        #expect(response.json?.keys.sorted() == ["code", "details", "hint", "message"])
    }

    @Test func aWrongSignatureIsNamedAndTheRightOneHinted() throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        let wrong = try world.request("POST", "/rest/v1/rpc/claim_task", as: .owner, json: ["id": Self.task],
                                      headers: ["apikey": AuthTestServer.publishableKey])
        #expect(wrong.json?["message"] as? String == "Could not find the function public.claim_task(id) in the schema cache")
        #expect(wrong.json?["hint"] as? String == "Perhaps you meant to call the function public.claim_task(task_id)")
        let unknown = try world.request("POST", "/rest/v1/rpc/take_task", as: .owner, json: ["task_id": Self.task],
                                        headers: ["apikey": AuthTestServer.publishableKey])
        #expect(unknown.status == 404)
        #expect((unknown.json?["hint"] as? String)?.contains("public.release_activity(activity_id)") == true)
    }

    @Test func queryFiltersAndOtherVerbsAreRefusedNotIgnored() throws {
        let world = try ResourceWorld(extraRoles: [.owner])
        let headers = ["apikey": AuthTestServer.publishableKey]
        let filtered = try world.request("POST", "/rest/v1/rpc/claim_task?id=eq.\(Self.task)", as: .owner,
                                         json: ["task_id": Self.task], headers: headers)
        #expect(filtered.status == 400 && filtered.json?["code"] as? String == "PGRST100")
        // select=* is the whole row, which is what the functions return: accepted (then 404: no such task).
        let selected = try world.request("POST", "/rest/v1/rpc/claim_task?select=%2A", as: .owner,
                                         json: ["task_id": Self.task], headers: headers)
        #expect(selected.status == 404 && selected.json?["code"] as? String == "not_found")
        let get = try world.request("GET", "/rest/v1/rpc/claim_task?task_id=\(Self.task)", as: .owner, headers: headers)
        #expect(get.status == 405)
    }
}
