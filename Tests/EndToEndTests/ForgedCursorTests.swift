import Foundation
import Testing

/// A cursor is opaque, but a client can forge one: well-formed base64url JSON whose numbers
/// are out of range. Every such cursor is refused where cursors are decoded, as 400
/// `invalid_cursor`; before, the list ones reached SQL and answered 422 `invalid_value`.
@Suite struct ForgedCursorTests {
    static func token(_ json: String) -> String {
        Data(json.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let id = "6F1C1C52-0000-4000-8000-000000000000"
    /// Positions no timestamp can have: beyond PostgreSQL's timestamptz range either way.
    static let keysetCursors = [
        token(#"{"u":9000000000000000000,"i":"\#(id)"}"#),
        token(#"{"u":-9000000000000000000,"i":"\#(id)"}"#),
        token(#"{"u":300000000000000000,"i":"\#(id)"}"#),
    ]

    @Test(arguments: keysetCursors)
    func listAndHistoryCursorsOutOfRangeAnswer400(_ cursor: String) throws {
        let world = try ResourceWorld(extraRoles: [])
        let task = try #require(try world.request("POST", "/v1/tasks", as: .admin, json: ["title": "T"]).json?["id"] as? String)
        for path in ["/v1/tasks", "/v1/listings", "/v1/activities", "/v1/tasks/\(task)/status-changes"] {
            let response = try world.request("GET", "\(path)?cursor=\(cursor)", as: .admin)
            #expect(response.status == 400, "\(path): \(String(decoding: response.body, as: UTF8.self))")
            #expect(response.json?["code"] as? String == "invalid_cursor", "\(path)")
        }
    }

    @Test(arguments: [token(#"{"key":9223372036854775807,"id":"\#(id)"}"#),
                      token(#"{"key":-9223372036854775808,"id":"\#(id)"}"#)])
    func childListCursorsOutOfRangeAnswer400(_ cursor: String) throws {
        let fixture = try ChildFixture()
        for child in ["notes", "subtasks"] {
            let path = "/v1/tasks/\(fixture.taskID.apiString)/\(child)?cursor=\(cursor)"
            #expect(try fixture.request(.owner, "GET", path).apiErrorCode == "invalid_cursor", "\(child)")
        }
    }

    /// Snapshots PostgreSQL's `pg_snapshot` input refuses: xmin 0, running ids out of order,
    /// ids of 2^63 and more (an outside probe got 422 invalid_value for those).
    @Test(arguments: [token(#"{"v":1,"s":"0:3:","hz":"0"}"#), token(#"{"v":1,"s":"0:0:","hz":"0"}"#),
                      token(#"{"v":1,"s":"3:9:7,5","hz":"0"}"#),
                      token(#"{"v":1,"s":"9223372036854775808:9223372036854775808:","hz":"0"}"#),
                      token(#"{"v":1,"s":"5:9223372036854775808:","hz":"0"}"#),
                      token(#"{"v":1,"hz":"0","st":1,"tx":"5","id":"\#(id.lowercased())","cs":"9223372036854775808:9223372036854775808:"}"#),
                      token(#"{"v":1,"hz":"0","st":1,"tx":"5","id":"\#(id.lowercased())","cs":"0:4:"}"#)])
    func syncCursorsPostgresWouldRefuseAnswer400(_ cursor: String) throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let response = try server.sync(rita, since: cursor)
        #expect(response.status == 400, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.json?["code"] as? String == "invalid_cursor")
    }
}
