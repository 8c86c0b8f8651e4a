@testable import API
@testable import Accounts
import Foundation
import HTTPServer
import JSON
@testable import Operations
@testable import Realtime
@testable import Resources
@testable import RouteKit
@testable import ServiceKit
@testable import Supabase
@testable import Sync
import Testing

/// `/rest/v1` answers decoded as supabase-swift 2.55.1 decodes them: every route's success
/// body with the client's decoder (rows as `[String: AnyJSON]`, every timestamp through its
/// date strategy, every id a `UUID`), and refusals triggered over HTTP as `PostgrestError`
/// (`PostgrestErrorMirror`), the claim conflict naming its holder. Every code the family can
/// emit is rendered in `ClientShapeErrorCatalogTests`.
@Suite struct ClientShapeRestTests {
    static let decoder = SupabaseSwiftDecoding.supabase()

    /// A PostgREST error body as the client decodes it; the test fails if it does not decode.
    static func postgrestError(_ response: TestHTTPClient.Response, _ label: String) throws -> PostgrestErrorMirror {
        try SupabaseSwiftDecoding.decode(PostgrestErrorMirror.self, response, label, with: decoder)
    }

    /// Rows as the client reads them (`[[String: AnyJSON]]`, or one object), with every
    /// timestamp-looking string parsed by its date strategy and every id-looking string a UUID.
    static func expectRows(_ response: TestHTTPClient.Response, object: Bool = false, _ label: String) throws {
        let body = response.header("Transfer-Encoding") == "chunked" ? (RestWorld.dechunk(response.body)?.body ?? []) : response.body
        let rows = object ? [try decoder.decode([String: JSONValue].self, from: Data(body))]
                          : try decoder.decode([[String: JSONValue]].self, from: Data(body))
        for row in rows {
            for (key, value) in row {
                guard let text = value.string else { continue }
                if text.range(of: #"^\d{4}-\d{2}-\d{2}[T ]"#, options: .regularExpression) != nil {
                    #expect(SupabaseSwiftDecoding.date(text) != nil, "\(label): \(key) = \(text) is not a date the client reads")
                }
                if key == "id" || key.hasSuffix("_id") || key.hasSuffix("_by") {
                    #expect(UUID(uuidString: text) != nil, "\(label): \(key) = \(text) is not a UUID")
                }
            }
        }
    }

    @Test func everyRouteAnswersWhatTheClientDecodes() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try world.scene(claimed: false)
        _ = try world.request("POST", "/v1/notes", as: .owner, json: ["parent_type": "task", "parent_id": scene.task, "content": "n"])
        func rest(_ method: String, _ path: String, as role: ResourceWorld.Role = .admin, json: Any? = nil,
                  headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
            var headers = headers
            headers["Apikey"] = AuthTestServer.publishableKey
            let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
            if body != nil { headers["Content-Type"] = "application/json" }
            return try world.app.request(method, "/rest/v1/" + path, token: world.token(role), body: body, headers: headers)
        }
        for table in RestTables.names {
            let read = try rest("GET", "\(table)?select=*")
            #expect(read.status == 200, "\(table): \(read.status)")
            try Self.expectRows(read, "GET \(table)")
            let counted = try rest("HEAD", "\(table)?select=*", headers: ["Prefer": "count=exact"])
            #expect(counted.status == 200 || counted.status == 206, "HEAD \(table): \(counted.status)")
        }
        let object = ["Accept": "application/vnd.pgrst.object+json", "Prefer": "return=representation"]
        try Self.expectRows(try rest("GET", "tasks?id=eq.\(scene.task.uppercased())&select=*", headers: object), object: true, "single")

        // What supabase-swift sends on sync-up: an upper-case id, millisecond dates.
        let id = UUID().uuidString
        let inserted = try rest("POST", "tasks?select=*", as: .owner,
                                json: [["id": id, "title": "Shape", "listing_id": scene.listing.uppercased(),
                                        "due_date": "2026-03-01T09:30:00.250Z"]], headers: ["Prefer": "return=representation"])
        #expect(inserted.status == 201, "\(String(decoding: inserted.body, as: UTF8.self))")
        try Self.expectRows(inserted, "POST tasks")
        let patched = try rest("PATCH", "tasks?id=eq.\(id)&select=*", as: .owner, json: ["claimed_by": world.id(.owner)],
                               headers: object)
        #expect(patched.status == 200)
        try Self.expectRows(patched, object: true, "PATCH tasks")
        let released = try rest("POST", "rpc/release_task", as: .owner, json: ["task_id": id])
        #expect(released.status == 200)
        try Self.expectRows(released, object: true, "rpc release_task")
        let claimed = try rest("POST", "rpc/claim_task", as: .owner, json: ["task_id": id])
        try Self.expectRows(claimed, object: true, "rpc claim_task")
        for action in ["claim_activity", "release_activity"] {
            let answered = try rest("POST", "rpc/\(action)", as: .owner, json: ["activity_id": scene.activity.uppercased()])
            #expect(answered.status == 200, "\(action): \(String(decoding: answered.body, as: UTF8.self))")
            try Self.expectRows(answered, object: true, "rpc \(action)")
        }
        let deleted = try rest("DELETE", "tasks?id=eq.\(id)&select=*", as: .owner, headers: ["Prefer": "return=representation"])
        #expect(deleted.status == 200)
        try Self.expectRows(deleted, "DELETE tasks")
    }

    @Test func refusalsDecodeAsPostgrestErrorAndALostClaimNamesItsHolder() throws {
        let world = try ResourceWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try world.scene(claimed: true)
        let holder = world.id(.claimer)
        func rest(_ method: String, _ path: String, as role: ResourceWorld.Role? = .owner, body: String? = nil,
                  headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
            var headers = headers
            if headers["Apikey"] == nil { headers["Apikey"] = AuthTestServer.publishableKey }
            if body != nil, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
            return try world.app.request(method, "/rest/v1/" + path, token: role.map { world.token($0) },
                                         body: body.map { Array($0.utf8) }, headers: headers)
        }

        // The app's lost race, both ways: PATCH claimed_by and the claim RPC.
        for (label, response) in [
            ("PATCH", try rest("PATCH", "tasks?id=eq.\(scene.task.uppercased())", body: #"{"claimed_by":"\#(world.id(.owner).uppercased())"}"#)),
            ("RPC", try rest("POST", "rpc/claim_task", body: #"{"task_id":"\#(scene.task.uppercased())"}"#)),
        ] {
            let error = try Self.postgrestError(response, label)
            #expect(response.status == 409 && error.code == "claim_conflict", "\(label)")
            // details: logfmt, `claimed_at=<RFC 3339 ms> claimed_by=<uuid>`; the same facts as keys.
            let facts = Dictionary((error.details ?? "").split(separator: " ").compactMap { pair -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
            #expect(SupabaseSwiftDecoding.sameUUID(facts["claimed_by"], holder), "\(label): \(error.details ?? "nil")")
            #expect(facts["claimed_at"].flatMap(SupabaseSwiftDecoding.date) != nil, "\(label): \(error.details ?? "nil")")
            #expect(SupabaseSwiftDecoding.sameUUID(response.json?["claimed_by"] as? String, holder))
            #expect(response.json?["claimed_at"] as? String == facts["claimed_at"])
        }

        let validation = try rest("POST", "tasks", body: #"{"title":"","priority":"someday"}"#)
        let invalid = try Self.postgrestError(validation, "validation")
        #expect(validation.status == 422 && invalid.code == "validation_failed")
        let fieldErrors = validation.json?["errors"] as? [[String: String]] ?? []
        #expect(Set(fieldErrors.compactMap { $0["field"] }) == ["title", "priority"], "\(fieldErrors)")
        #expect(invalid.details == fieldErrors.map { "\($0["field"] ?? "")=\($0["code"] ?? "")" }.joined(separator: " "))

        let cases: [(String, TestHTTPClient.Response, Int, String)] = [
            ("bad filter", try rest("GET", "tasks?title=eqq.x"), 400, "PGRST100"),
            ("bad body", try rest("POST", "tasks", body: "[1]"), 400, "PGRST102"),
            ("range", try rest("GET", "tasks?offset=1000", headers: ["Prefer": "count=exact"]), 416, "PGRST103"),
            ("media type", try rest("POST", "rpc/claim_task", body: "x", headers: ["Content-Type": "text/plain"]), 415, "PGRST107"),
            ("single", try rest("GET", "tasks?id=eq.\(UUID())", headers: ["Accept": "application/vnd.pgrst.object+json"]), 406, "PGRST116"),
            ("function", try rest("POST", "rpc/nope", body: "{}"), 404, "PGRST202"),
            ("body column", try rest("POST", "tasks", body: #"{"title":"x","nope":1}"#), 400, "PGRST204"),
            ("table", try rest("GET", "nope"), 404, "PGRST205"),
            ("bad token", try rest("GET", "tasks", as: nil, headers: ["Authorization": "Bearer not.a.jwt"]), 401, "PGRST301"),
            ("no filter", try rest("DELETE", "tasks"), 400, "21000"),
            ("null parameter", try rest("POST", "rpc/claim_task", body: #"{"task_id":null}"#), 400, "22004"),
            ("value", try rest("GET", "tasks?id=eq.not-a-uuid"), 400, "22P02"),
            ("id in use", try rest("POST", "tasks", body: #"{"id":"\#(scene.task)","title":"x"}"#), 409, "23505"),
            ("forbidden", try rest("POST", "claim_events", body: #"{"entity_type":"task"}"#), 403, "42501"),
            ("column", try rest("GET", "tasks?nope=eq.1"), 400, "42703"),
            ("is", try rest("GET", "tasks?title=is.true"), 400, "42804"),
            ("on_conflict", try rest("POST", "tasks?on_conflict=title", body: #"{"title":"x"}"#), 400, "42P10"),
            ("bad key", try rest("GET", "tasks", headers: ["Apikey": "sb_publishable_wrong"]), 401, "invalid_api_key"),
            ("route", try rest("PUT", "tasks", body: "{}"), 405, "method_not_allowed"),
            ("duplicate key", try rest("POST", "tasks", body: #"{"title":"a","title":"b"}"#), 400, "duplicate_key"),
        ]
        for (label, response, status, code) in cases {
            let error = try Self.postgrestError(response, label)
            #expect(response.status == status && error.code == code, "\(label): \(response.status) \(error)")
        }
    }
}
