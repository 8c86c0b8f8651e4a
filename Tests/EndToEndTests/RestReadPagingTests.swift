import Foundation
import Testing

/// `GET`/`HEAD /rest/v1/<table>`: order, `limit`/`offset`, the `Range` header, `Prefer: count`
/// with `Content-Range` and PostgREST's 206/416, and the single-object `Accept`.
@Suite struct RestReadPagingTests {
    @Test func orderTakesSeveralKeysWithNullsPlacement() throws {
        let rest = try RestWorld()
        #expect(try rest.titles("tasks?order=title.desc") == ["Echo", "Delta", "Charlie", "Bravo", "Alpha"])
        #expect(try rest.titles("tasks?order=due_date.asc.nullsfirst") == ["Charlie", "Alpha", "Bravo", "Delta", "Echo"])
        #expect(try rest.titles("tasks?order=due_date.desc.nullslast") == ["Echo", "Delta", "Bravo", "Alpha", "Charlie"])
        #expect(try rest.titles("tasks?order=priority.asc,title.desc") == ["Charlie", "Alpha", "Echo", "Bravo", "Delta"])
        #expect(try rest.titles("tasks?order=description.asc.nullsfirst,title") == ["Bravo", "Delta", "Alpha", "Charlie", "Echo"])
    }

    @Test func limitOffsetAndRangeHeaderSelectTheSameWindow() throws {
        let rest = try RestWorld()
        #expect(try rest.titles("tasks?order=title&limit=2") == ["Alpha", "Bravo"])
        #expect(try rest.titles("tasks?order=title&limit=2&offset=2") == ["Charlie", "Delta"])
        #expect(try rest.titles("tasks?order=title&offset=3") == ["Delta", "Echo"])
        #expect(try rest.titles("tasks?order=title", headers: ["Range": "1-3", "Range-Unit": "items"]) == ["Bravo", "Charlie", "Delta"])
        #expect(try rest.titles("tasks?order=title", headers: ["Range": "3-"]) == ["Delta", "Echo"])
        // Header and parameters intersect.
        #expect(try rest.titles("tasks?order=title&limit=2", headers: ["Range": "1-3"]) == ["Bravo"])
        let empty = try rest.get("tasks?limit=0", headers: ["Prefer": "count=exact"])
        #expect(empty.status == 206 && RestWorld.array(empty).isEmpty) // PostgREST: 0 of 5 rows is partial
        #expect(empty.header("Content-Range") == "*/5")
    }

    @Test func countPreferencesAnswerContentRangeWith206ForPartialResults() throws {
        let rest = try RestWorld()
        let partial = try rest.get("tasks?order=title&limit=2&offset=1", headers: ["Prefer": "count=exact"])
        #expect(partial.status == 206)
        #expect(partial.header("Content-Range") == "1-2/5")
        let whole = try rest.get("tasks?order=title", headers: ["Prefer": "count=exact"])
        #expect(whole.status == 200)
        #expect(whole.header("Content-Range") == "0-4/5")
        #expect(RestWorld.array(whole).count == 5)
        let none = try rest.get("tasks?title=eq.Zulu&limit=10", headers: ["Prefer": "count=exact"])
        #expect(none.status == 200 && none.header("Content-Range") == "*/0")
        let uncounted = try rest.get("tasks?order=title&limit=2")
        #expect(uncounted.status == 200 && uncounted.header("Content-Range") == "0-1/*")
        for mode in ["planned", "estimated"] {
            let response = try rest.get("tasks?limit=2", headers: ["Prefer": "count=\(mode)"])
            let total = response.header("Content-Range")?.split(separator: "/").last.flatMap { Int($0) }
            #expect(total != nil, "\(mode)")
            #expect(response.status == 206 || response.status == 200)
        }
        // Prefer values are a set: any order, other preferences beside, several headers.
        let mixed = try rest.get("tasks?limit=1", headers: ["Prefer": "return=representation,count=exact,missing=default"])
        #expect(mixed.header("Content-Range") == "0-0/5")
        let beyond = try rest.get("tasks?offset=9&limit=5", headers: ["Prefer": "count=exact"])
        #expect(beyond.status == 416 && RestWorld.code(beyond) == "PGRST103")
        #expect(beyond.header("Content-Range") == "*/5")
    }

    @Test func headAnswersTheCountWithoutABody() throws {
        let rest = try RestWorld()
        let head = try rest.get("tasks?priority=eq.medium", method: "HEAD", headers: ["Prefer": "count=exact"])
        #expect(head.status == 200)
        #expect(head.header("Content-Range") == "0-1/2")
        #expect(head.body.isEmpty)
        let partial = try rest.get("tasks?limit=1", method: "HEAD", headers: ["Prefer": "count=exact"])
        #expect(partial.status == 206 && partial.header("Content-Range") == "0-0/5")
    }

    @Test func singleObjectAcceptAnswersOneObjectOr406WithTheRowCount() throws {
        let rest = try RestWorld()
        let accept = ["Accept": "application/vnd.pgrst.object+json"]
        let one = try rest.get("tasks?title=eq.Charlie", headers: accept)
        #expect(one.status == 200)
        #expect(one.json?["id"] as? String == rest.id("Charlie"))
        #expect(one.header("Content-Type")?.hasPrefix("application/vnd.pgrst.object+json") == true)
        let zero = try rest.get("tasks?title=eq.Zulu", headers: accept)
        #expect(zero.status == 406)
        #expect(RestWorld.code(zero) == "PGRST116")
        #expect(zero.json?["details"] as? String == "The result contains 0 rows")
        let many = try rest.get("tasks?priority=eq.medium", headers: accept)
        #expect(many.status == 406 && many.json?["details"] as? String == "The result contains 2 rows")
        let limited = try rest.get("tasks?priority=eq.medium&limit=1", headers: accept)
        #expect(limited.status == 200)
    }
}
