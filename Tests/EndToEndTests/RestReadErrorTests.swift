import Foundation
import Testing

/// `/rest/v1` refusals in PostgREST's shape, visibility, and the wire quirks of the official
/// clients (supabase-swift sends `Apikey`, upper-case UUIDs, dates without a zone, fully
/// percent-encoded values; others send a raw `+` in timestamps).
@Suite struct RestReadErrorTests {
    @Test(arguments: [
        ("nope?select=*", 404, "PGRST205"),
        ("tasks?select=id,nope", 400, "42703"),
        ("tasks?nope=eq.1", 400, "42703"),
        ("tasks?order=nope.desc", 400, "42703"),
        ("tasks?select=*,listings(*)", 400, "PGRST100"),
        ("tasks?select=name:title", 400, "PGRST100"),
        ("tasks?select=title::text", 400, "PGRST100"),
        ("tasks?listings.title=eq.x", 400, "PGRST100"),
        ("tasks?title=eqq.x", 400, "PGRST100"),
        ("tasks?title=Alpha", 400, "PGRST100"),
        ("tasks?title=fts.word", 400, "PGRST100"),
        ("tasks?or=(title.eq.A", 400, "PGRST100"),
        ("tasks?title=in.Alpha", 400, "PGRST100"),
        ("tasks?order=title.sideways", 400, "PGRST100"),
        ("tasks?limit=ten", 400, "PGRST100"),
        ("tasks?limit=-1", 416, "PGRST103"),
        ("tasks?id=eq.not-a-uuid", 400, "22P02"),
        ("tasks?version=gt.many", 400, "22P02"),
        ("subtasks?completed=eq.maybe", 400, "22P02"),
        ("listings?price=lt.cheap", 400, "22P02"),
        ("tasks?due_date=gt.yesterday-ish", 400, "22007"),
        ("tasks?title=is.true", 400, "42804"),
    ] as [(String, Int, String)])
    func badRequestsAnswerPostgRESTErrors(_ path: String, _ status: Int, _ code: String) throws {
        let rest = try RestWorld()
        let response = try rest.get(path)
        #expect(response.status == status, "\(path): \(String(decoding: response.body, as: UTF8.self))")
        #expect(RestWorld.code(response) == code, "\(path)")
        #expect(response.json?["message"] is String)
        #expect(response.json?.keys.sorted() == ["code", "details", "hint", "message"])
    }

    @Test func anOutsiderSeesNoRowsAndNoIds() throws {
        let rest = try RestWorld()
        for table in ["listings", "tasks", "activities", "notes", "subtasks", "claim_events", "status_changes"] {
            let response = try rest.get("\(table)?select=*", as: .stranger, headers: ["Prefer": "count=exact"])
            #expect(response.status == 200, "\(table)")
            #expect(RestWorld.array(response).isEmpty, "\(table)")
            #expect(response.header("Content-Range") == "*/0", "\(table)")
        }
        let byID = try rest.get("tasks?id=eq.\(rest.id("Alpha"))", as: .stranger,
                                headers: ["Accept": "application/vnd.pgrst.object+json"])
        #expect(byID.status == 406 && byID.json?["details"] as? String == "The result contains 0 rows")
        #expect(!String(decoding: byID.body, as: UTF8.self).contains(rest.id("Alpha")))
        // The admin sees them all.
        #expect(try rest.titles("tasks", as: .admin).count == 5)
    }

    @Test func withoutAUserTokenTheAnswerIs401InPostgRESTShape() throws {
        let rest = try RestWorld()
        let key = AuthTestServer.publishableKey
        // Anonymous (only the public key, as the clients send before sign-in).
        let anonymous = try rest.world.app.request("GET", "/rest/v1/tasks?select=*",
                                                   headers: ["apikey": key, "Authorization": "Bearer \(key)"])
        #expect(anonymous.status == 401 && RestWorld.code(anonymous) == "PGRST301")
        let forged = try rest.world.app.request("GET", "/rest/v1/tasks?select=*", token: "not.a.jwt", headers: ["apikey": key])
        #expect(forged.status == 401 && RestWorld.code(forged) == "PGRST301")
        #expect(try rest.get("tasks?select=*", headers: ["apikey": "wrong"]).status == 401)
        // `apikey` in the query string is the key, not a filter.
        #expect(try rest.titles("tasks?select=*&apikey=\(key)&title=eq.Alpha") == ["Alpha"])
    }

    @Test func swiftClientQuirksAreUnderstood() throws {
        let rest = try RestWorld()
        let upper = rest.id("Bravo").uppercased()
        // `Apikey` casing, an upper-case UUID, a fully percent-encoded value (`*`, `.`, `:` …).
        let swift = try rest.get("tasks?select=%2A&id=eq.\(upper)", headers: ["Apikey": AuthTestServer.publishableKey])
        #expect(RestWorld.array(swift).compactMap { $0["title"] as? String } == ["Bravo"])
        #expect(try rest.titles("tasks?id=in.%28\(upper)%2C\(rest.id("Alpha").uppercased())%29").sorted() == ["Alpha", "Bravo"])
        // Dates without a zone are UTC; any offset works, encoded or as a raw `+`.
        #expect(try rest.titles("tasks?due_date=eq.2026-01-02T09:00:00.000") == ["Bravo"])
        #expect(try rest.titles("tasks?due_date=eq.2026-01-02T09%3A00%3A00.000Z") == ["Bravo"])
        #expect(try rest.titles("tasks?due_date=eq.2026-01-02T11:00:00.000%2B02:00") == ["Bravo"])
        #expect(try rest.titles("tasks?due_date=eq.2026-01-02T11:00:00.000+02:00") == ["Bravo"])
        #expect(try rest.titles("tasks?due_date=eq.2026-01-02T04:00:00-05:00") == ["Bravo"])
        #expect(try rest.titles("tasks?or=%28title.eq.Alpha%2Ctitle.eq.Echo%29").sorted() == ["Alpha", "Echo"])
        // The order Swift sends: `column.direction.nulls…`, percent-encoded.
        #expect(try rest.titles("tasks?order=title.asc.nullslast&limit=1") == ["Alpha"])
        // Prefer values in another order, split over two headers.
        let counted = try rest.get("tasks?limit=1", headers: ["Prefer": "missing=default, count=exact"])
        #expect(counted.header("Content-Range") == "0-0/5")
    }
}
