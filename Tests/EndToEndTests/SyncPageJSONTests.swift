import Foundation
@testable import Store
import Testing

/// `SyncPage.json`: an empty page (an idle poll's, written from a constant tail) has the same
/// keys as a page with rows, every list empty (no database).
@Suite struct SyncPageJSONTests {
    static func object(_ page: SyncPage) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(page.json(epoch: "e1").utf8)) as? [String: Any])
    }

    @Test func anEmptyPageHasEveryListAndNothingInThem() throws {
        let next = SyncCursor(since: SyncSnapshot(xmin: 5, xmax: 9, running: [6]), horizon: 1)
        var full = SyncPage(next: next)
        full.rows[.tasks] = [#"{"id":"t1"}"#]
        full.removed = [SyncPage.Removal(type: "task", id: "t2")]
        let empty = SyncPage(next: next)
        #expect(empty.isEmpty && !full.isEmpty)
        let emptyObject = try Self.object(empty), fullObject = try Self.object(full)
        #expect(Set(emptyObject.keys) == Set(fullObject.keys))
        #expect(Set(emptyObject.keys).isSuperset(of: SyncStage.allCases.map(\.key)))
        for (key, value) in emptyObject where key != "next_since" && key != "has_more" {
            #expect((value as? [Any])?.isEmpty == true, "\(key)")
        }
        #expect(emptyObject["next_since"] as? String == next.encoded(epoch: "e1"))
        #expect(emptyObject["has_more"] as? Bool == false)
        var more = empty
        more.hasMore = true
        #expect(try Self.object(more)["has_more"] as? Bool == true)
    }
}
