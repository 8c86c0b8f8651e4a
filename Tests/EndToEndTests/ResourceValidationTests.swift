import Foundation
import Testing

/// contract §4 validation on listing, task and activity bodies: each bad field answers 422
/// `validation_failed` naming that field with its code; several bad fields are all reported.
@Suite struct ResourceValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var path: String
        var field: String
        var value: String  // JSON text
        var code: String
        var testDescription: String { "\(path) \(field)=\(value) → \(code)" }
    }

    static let listing = "/v1/listings"
    static let task = "/v1/tasks"
    static let activity = "/v1/activities"

    static let cases: [Case] = [
        Case(path: listing, field: "address", value: "\"  \"", code: "blank"),
        Case(path: listing, field: "address", value: "null", code: "not_nullable"),
        Case(path: listing, field: "address", value: "12", code: "invalid_type"),
        Case(path: listing, field: "address", value: "\"\(String(repeating: "a", count: 501))\"", code: "too_long"),
        Case(path: listing, field: "city", value: "\"\(String(repeating: "a", count: 201))\"", code: "too_long"),
        Case(path: listing, field: "price", value: "19.999", code: "invalid_price"),
        Case(path: listing, field: "price", value: "-1", code: "invalid_price"),
        Case(path: listing, field: "price", value: "10000000000", code: "invalid_price"),
        Case(path: listing, field: "price", value: "\"12,50\"", code: "invalid_price"),
        Case(path: listing, field: "price", value: "true", code: "invalid_type"),
        Case(path: listing, field: "listing_type", value: "\"lease\"", code: "invalid_value"),
        Case(path: listing, field: "status", value: "\"sold\"", code: "invalid_value"),
        Case(path: listing, field: "status", value: "\"deleted\"", code: "use_delete"),
        Case(path: listing, field: "owned_by", value: "\"not-a-uuid\"", code: "invalid_uuid"),
        Case(path: listing, field: "assigned_staff", value: "\"6f1c1c52-0000-4000-8000-000000000000\"", code: "unknown_user"),
        Case(path: listing, field: "created_via", value: "\"email\"", code: "invalid_value"),
        Case(path: listing, field: "source_slack_messages", value: "[1]", code: "invalid_type"),
        // Three messages within the per-message limit, 120,000 characters together: the total is bounded too.
        Case(path: task, field: "source_slack_messages",
             value: "[" + Array(repeating: "\"\(String(repeating: "s", count: 40_000))\"", count: 3).joined(separator: ",") + "]",
             code: "too_long"),
        // One letter with 500 combining accents: one grapheme, 501 code points.
        Case(path: task, field: "title", value: "\"e\(String(repeating: "\u{301}", count: 500))\"", code: "too_long"),
        Case(path: listing, field: "source_slack_messages", value: "\"text\"", code: "invalid_type"),
        Case(path: listing, field: "colour", value: "\"red\"", code: "unknown_field"),
        Case(path: task, field: "title", value: "\"\"", code: "blank"),
        Case(path: task, field: "description", value: "\"\(String(repeating: "a", count: 10_001))\"", code: "too_long"),
        Case(path: task, field: "due_date", value: "\"tomorrow\"", code: "invalid_date"),
        Case(path: task, field: "due_date", value: "\"2026-13-01\"", code: "invalid_date"),
        Case(path: task, field: "due_date", value: "20261201", code: "invalid_type"),
        // Impossible days were stored rolled over (2026-02-30 as 2026-03-02).
        Case(path: task, field: "due_date", value: "\"2026-02-30\"", code: "invalid_date"),
        Case(path: task, field: "due_date", value: "\"2026-04-31T09:00:00Z\"", code: "invalid_date"),
        Case(path: task, field: "due_date", value: "\"2026-02-29\"", code: "invalid_date"),
        Case(path: task, field: "priority", value: "\"asap\"", code: "invalid_value"),
        Case(path: task, field: "status", value: "\"done\"", code: "invalid_value"),
        Case(path: task, field: "status", value: "\"deleted\"", code: "use_delete"),
        Case(path: task, field: "listing_id", value: "\"6f1c1c52-0000-4000-8000-000000000000\"", code: "unknown_listing"),
        Case(path: task, field: "claimed_by", value: "\"6f1c1c52-0000-4000-8000-000000000000\"", code: "read_only"),
        Case(path: task, field: "type", value: "\"call\"", code: "unknown_field"),
        Case(path: task, field: "duration_seconds", value: "60", code: "unknown_field"),
        Case(path: activity, field: "type", value: "\"lunch\"", code: "invalid_value"),
        Case(path: activity, field: "duration_seconds", value: "-5", code: "invalid_value"),
        Case(path: activity, field: "duration_seconds", value: "1.5", code: "invalid_value"),
        Case(path: activity, field: "duration_seconds", value: "\"60\"", code: "invalid_type"),
        Case(path: activity, field: "id", value: "\"nope\"", code: "invalid_uuid"),
    ]

    @Test(arguments: cases)
    func badFieldAnswers422NamingTheFieldAndItsCode(_ testCase: Case) throws {
        let world = try ResourceWorld(extraRoles: [])
        let required = testCase.path == Self.listing ? "\"address\": \"1 Main St\"" : "\"title\": \"Call\""
        let body = testCase.field == "address" || testCase.field == "title"
            ? "{\"\(testCase.field)\": \(testCase.value)}"
            : "{\(required), \"\(testCase.field)\": \(testCase.value)}"
        let response = try world.app.request("POST", testCase.path, token: world.token(.admin), body: Array(body.utf8),
                                             headers: ["Content-Type": "application/json"])
        #expect(response.status == 422, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.json?["code"] as? String == "validation_failed")
        let details = (response.json?["details"] as? [[String: Any]]) ?? []
        #expect(details.contains { $0["field"] as? String == testCase.field && $0["code"] as? String == testCase.code },
                "\(details)")
    }

    @Test func everyBadFieldIsReportedInOneAnswer() throws {
        let world = try ResourceWorld(extraRoles: [])
        let response = try world.request("POST", Self.activity, as: .admin,
                                         json: ["priority": "asap", "type": "lunch", "due_date": "soon", "duration_seconds": -1,
                                                "extra": 1])
        #expect(response.status == 422)
        #expect(ResourceWorld.fields(in: response) == ["title", "priority", "type", "due_date", "duration_seconds", "extra"])
    }

    @Test func validBoundaryValuesAreAccepted() throws {
        let world = try ResourceWorld(extraRoles: [])
        let listing = try world.request("POST", Self.listing, as: .admin,
                                        json: ["address": " 1 Main St ", "price": 9_999_999_999.99, "mls_number": NSNull(),
                                               "source_slack_messages": ["hello"], "listing_type": "rental"])
        #expect(listing.status == 201)
        #expect(listing.json?["address"] as? String == "1 Main St")
        #expect((listing.json?["price"] as? NSNumber)?.stringValue == "9999999999.99")
        let priced = try world.request("POST", Self.listing, as: .admin, json: ["address": "2 Main St", "price": "19.90"])
        #expect((priced.json?["price"] as? NSNumber)?.doubleValue == 19.9)
        let activity = try world.request("POST", Self.activity, as: .admin,
                                         json: ["title": "Show", "type": "show_property", "duration_seconds": 0,
                                                "due_date": "2026-11-22T10:15:30.123456789+02:00", "status": "in_progress"])
        #expect(activity.status == 201)
        #expect(activity.json?["due_date"] as? String == "2026-11-22T08:15:30.123Z")
        #expect(activity.json?["declared_by"] as? String == world.id(.admin))
    }

    @Test func serverManagedFieldsAreIgnoredAndWrongMediaTypeIs415() throws {
        let world = try ResourceWorld(extraRoles: [])
        let response = try world.request("POST", Self.task, as: .admin,
                                         json: ["title": "Call", "version": 7, "created_at": "2000-01-01T00:00:00Z",
                                                "declared_by": UUID().uuidString, "completed_at": NSNull(), "claimed_by": NSNull()])
        #expect(response.status == 201)
        #expect(response.json?["version"] as? Int == 1)
        #expect(response.json?["declared_by"] as? String == world.id(.admin))
        let text = try world.app.request("POST", Self.task, token: world.token(.admin), body: Array("title=x".utf8),
                                         headers: ["Content-Type": "text/plain"])
        #expect(text.status == 415)
        let broken = try world.app.request("POST", Self.task, token: world.token(.admin), body: Array("{".utf8),
                                           headers: ["Content-Type": "application/json"])
        #expect(broken.status == 400)
        #expect(broken.json?["code"] as? String == "invalid_json")
    }
}
