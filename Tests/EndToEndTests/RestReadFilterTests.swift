import Foundation
import Testing

/// `GET /rest/v1/<table>` filters (PostgREST grammar): every operator, `not.`, `or=(…)` with a
/// nested `and(…)`, repeated keys, and column lists in `select`.
@Suite struct RestReadFilterTests {
    @Test func everyOperatorSelectsTheRowsPostgRESTWould() throws {
        let rest = try RestWorld()
        func titles(_ query: String) throws -> Set<String> { Set(try rest.titles("tasks?select=*&\(query)")) }
        #expect(try titles("title=eq.Bravo") == ["Bravo"])
        #expect(try titles("priority=neq.medium") == ["Alpha", "Charlie", "Delta"])
        #expect(try titles("due_date=gt.2026-01-02T09:00:00Z") == ["Delta", "Echo"])
        #expect(try titles("due_date=gte.2026-01-02T09:00:00Z") == ["Bravo", "Delta", "Echo"])
        #expect(try titles("due_date=lt.2026-01-02T09:00:00Z") == ["Alpha"])
        #expect(try titles("due_date=lte.2026-01-02T09:00:00Z") == ["Alpha", "Bravo"])
        #expect(try titles("due_date=is.null") == ["Charlie"])
        #expect(try titles("due_date=not.is.null") == ["Alpha", "Bravo", "Delta", "Echo"])
        #expect(try titles("description=is.NULL") == ["Bravo", "Delta"])
        #expect(try titles("title=in.(Alpha,Echo,Zulu)") == ["Alpha", "Echo"])
        #expect(try titles("description=in.(\"call, then email\",\"sign (twice)\")") == ["Alpha", "Echo"])
        #expect(try titles("title=not.in.(Alpha,Echo)") == ["Bravo", "Charlie", "Delta"])
        #expect(try titles("title=like.*ha*") == ["Alpha", "Charlie"])
        #expect(try titles("title=ilike.*A*") == ["Alpha", "Bravo", "Charlie", "Delta"])
        #expect(try titles("title=not.ilike.*a*") == ["Echo"])
        #expect(try titles("id=eq.\(rest.id("Delta"))") == ["Delta"])
        #expect(try titles("id=in.(\(rest.id("Alpha")),\(rest.id("Bravo")))") == ["Alpha", "Bravo"])
    }

    @Test func repeatedKeysAndOrTreesCombine() throws {
        let rest = try RestWorld()
        func titles(_ query: String) throws -> Set<String> { Set(try rest.titles("tasks?\(query)")) }
        // Repeated keys are ANDed.
        #expect(try titles("due_date=gt.2026-01-01T12:00:00Z&due_date=lt.2026-01-05T00:00:00Z") == ["Bravo", "Delta"])
        #expect(try titles("or=(title.eq.Alpha,priority.eq.urgent)") == ["Alpha", "Delta"])
        #expect(try titles("or=(title.eq.Alpha,and(priority.eq.medium,due_date.gt.2026-01-03T00:00:00Z))") == ["Alpha", "Echo"])
        #expect(try titles("or=(description.eq.\"sign (twice)\",title.in.(Bravo,Charlie))") == ["Bravo", "Charlie", "Echo"])
        #expect(try titles("or=(title.not.eq.Alpha,priority.eq.low)&title=neq.Echo") == ["Alpha", "Bravo", "Charlie", "Delta"])
        #expect(try titles("not.or=(title.eq.Alpha,title.eq.Bravo)") == ["Charlie", "Delta", "Echo"])
        #expect(try titles("and=(priority.eq.medium,title.eq.Echo)") == ["Echo"])
    }

    @Test func selectListsOnlyTheNamedColumnsWithTimestampsInUTCMilliseconds() throws {
        let rest = try RestWorld()
        let response = try rest.get("tasks?select=id,title,due_date&title=eq.Alpha")
        #expect(response.status == 200)
        let rows = RestWorld.array(response)
        #expect(rows.count == 1)
        #expect(Set(rows.first?.keys.map { $0 } ?? []) == ["id", "title", "due_date"])
        #expect(rows.first?["due_date"] as? String == "2026-01-01T09:00:00.000Z")
        // `*` is every described column, as dispatch_json emits them.
        let all = RestWorld.array(try rest.get("tasks?select=%2A&title=eq.Alpha")).first ?? [:]
        #expect(all["updated_at"] as? String != nil && (all["updated_at"] as? String)?.hasSuffix("Z") == true)
        #expect(all["version"] as? Int == 1 && all["txid"] == nil)
    }

    @Test func everyTableAnswersWithRowsTheCallerCanSee() throws {
        let rest = try RestWorld()
        for table in ["users", "listings", "tasks", "activities", "notes", "subtasks", "claim_events", "status_changes"] {
            let response = try rest.get("\(table)?select=*")
            #expect(response.status == 200, "\(table)")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        }
        #expect(RestWorld.array(try rest.get("listings?select=id")).compactMap { $0["id"] as? String } == [rest.listing])
    }
}
