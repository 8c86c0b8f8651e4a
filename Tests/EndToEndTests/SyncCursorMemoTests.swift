import Foundation
@testable import Store
import Testing

/// `SyncCursorMemo`: an idle poll's cursor is decoded and encoded from memory, and what the
/// memory answers is always what the coding would have (no database).
@Suite struct SyncCursorMemoTests {
    static func cursor(_ xmax: UInt64) -> SyncCursor {
        SyncCursor(since: SyncSnapshot(xmin: 700, xmax: xmax, running: [701]), horizon: 3)
    }

    @Test func encodingIsRememberedPerCursorAndEpoch() {
        let memo = SyncCursorMemo(capacity: 4)
        var calls = 0
        let encode = { (text: String) -> () -> String in { calls += 1; return text } }
        #expect(memo.text(Self.cursor(710), epoch: "e1", encode: encode("a")) == "a")
        #expect(memo.text(Self.cursor(710), epoch: "e1", encode: encode("wrong")) == "a")
        #expect(calls == 1)
        // Another epoch or another snapshot is another text.
        #expect(memo.text(Self.cursor(710), epoch: "e2", encode: encode("b")) == "b")
        #expect(memo.text(Self.cursor(711), epoch: "e1", encode: encode("c")) == "c")
        #expect(memo.text(Self.cursor(710), epoch: nil, encode: encode("d")) == "d")
        #expect(calls == 4)
    }

    @Test func decodingIsRememberedButRefusalsAreNot() {
        let memo = SyncCursorMemo(capacity: 4)
        var calls = 0
        let value = (Self.cursor(720), Optional("e1"))
        #expect(memo.value("t1") { calls += 1; return value }?.0 == value.0)
        #expect(memo.value("t1") { calls += 1; return nil }?.1 == "e1")
        #expect(calls == 1)
        #expect(memo.value("forged") { calls += 1; return nil } == nil)
        #expect(memo.value("forged") { calls += 1; return nil } == nil)
        #expect(calls == 3)
    }

    @Test func holdsAtMostItsCapacityOldestDroppedFirst() {
        let memo = SyncCursorMemo(capacity: 2)
        var calls = 0
        for xmax in [730, 731, 732] as [UInt64] { _ = memo.text(Self.cursor(xmax), epoch: nil) { calls += 1; return "\(xmax)" } }
        _ = memo.text(Self.cursor(732), epoch: nil) { calls += 1; return "x" }  // kept
        _ = memo.text(Self.cursor(730), epoch: nil) { calls += 1; return "730" }  // dropped: coded again
        #expect(calls == 4)
    }

    /// Through the shared memo, as the feed uses it: the same texts and values as the coding.
    @Test func sharedMemoAnswersWhatTheCodingDoes() throws {
        let cursor = Self.cursor(UInt64.random(in: 1_000...1_000_000))
        let first = cursor.encoded(epoch: "epoch-1")
        #expect(cursor.encoded(epoch: "epoch-1") == first)
        #expect(cursor.encoded(epoch: "epoch-2") != first)
        let decoded = try #require(SyncCursor.decodedWithEpoch(first))
        #expect(decoded.0 == cursor && decoded.1 == "epoch-1")
        let again = try #require(SyncCursor.decodedWithEpoch(first))
        #expect(again.0 == cursor && again.1 == "epoch-1")
        #expect(SyncCursor.decodedWithEpoch(first + "A") == nil)
    }
}
