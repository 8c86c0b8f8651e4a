import Foundation
import Testing

/// `Preference-Applied` on `/rest/v1`, as PostgREST sends it (Preferences.hs
/// `prefAppliedHeader`, Response.hs `responsePreferences`): the `Prefer` values that shaped
/// the answer, in PostgREST's order, only those that apply to the request, none for values
/// this server does not honour; no header when nothing applied.
@Suite struct RestPreferenceAppliedTests {
    @Test func writesReportResolutionMissingReturnAndCountByMethod() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        // Given in another order and split over two headers: reported in PostgREST's order.
        let inserted = try rest.send("POST", "tasks", as: .owner, body: [["title": "A"]],
                                     prefer: ["count=exact, return=representation", "missing=default,resolution=merge-duplicates"])
        #expect(inserted.status == 201, "\(RestWriteWorld.body(inserted))")
        #expect(inserted.header("Preference-Applied")
                == "resolution=merge-duplicates, missing=default, return=representation, count=exact")
        let id = try #require(try rest.text("SELECT id::text FROM tasks WHERE title = 'A'"))

        // An update takes missing= and return= but not resolution=; headers-only is answered
        // (and so reported) as minimal.
        let updated = try rest.send("PATCH", "tasks?id=eq.\(id)", as: .owner, body: ["title": "A2"],
                                    prefer: ["resolution=ignore-duplicates,missing=default,return=headers-only"])
        #expect(updated.status == 204, "\(RestWriteWorld.body(updated))")
        #expect(updated.header("Preference-Applied") == "missing=default, return=minimal")

        // A delete takes neither resolution= nor missing=; what this server does not apply
        // (tx=, handling=, timezone=, max-affected=) is never reported.
        let deleted = try rest.send("DELETE", "tasks?id=eq.\(id)", as: .owner,
                                    prefer: ["tx=rollback,handling=strict,missing=default,count=planned",
                                             "timezone=UTC,max-affected=1,resolution=merge-duplicates"])
        #expect(deleted.status == 204, "\(RestWriteWorld.body(deleted))")
        #expect(deleted.header("Preference-Applied") == "count=planned")

        // Nothing asked (or nothing honoured): no header at all.
        let plain = try rest.send("POST", "tasks", as: .owner, body: ["title": "B"])
        #expect(plain.status == 201 && plain.header("Preference-Applied") == nil)
        let unknown = try rest.send("POST", "tasks", as: .owner, body: ["title": "C"], prefer: ["tx=commit,frobnicate"])
        #expect(unknown.status == 201 && unknown.header("Preference-Applied") == nil)
    }

    @Test func readsReportTheCountTheyTook() throws {
        let rest = try RestWorld()
        let counted = try rest.get("tasks?limit=2", headers: ["Prefer": "return=representation, count=exact"])
        #expect(counted.status == 206 && counted.header("Content-Range") == "0-1/5")
        // return= is a write preference: a read does not report it.
        #expect(counted.header("Preference-Applied") == "count=exact")
        let streamed = try rest.get("tasks", headers: ["Prefer": "count=estimated"])
        #expect(streamed.status == 200 && streamed.header("Preference-Applied") == "count=estimated")
        let head = try rest.get("tasks", method: "HEAD", headers: ["Prefer": "count=planned"])
        #expect(head.status == 200 && head.header("Preference-Applied") == "count=planned")
        let uncounted = try rest.get("tasks?limit=2", headers: ["Prefer": "missing=default"])
        #expect(uncounted.status == 200 && uncounted.header("Preference-Applied") == nil)
    }
}
