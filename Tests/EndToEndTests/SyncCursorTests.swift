import Foundation
import Store
import Testing

/// The cursor and snapshot formats on their own (no database).
@Suite struct SyncCursorTests {
    @Test(arguments: [
        SyncCursor.initial,
        SyncCursor(since: SyncSnapshot(xmin: 740, xmax: 745, running: [741, 743]), horizon: 12),
        SyncCursor(since: nil, horizon: 0, position: .init(stage: .notes, txid: 730, id: UUID(),
                                                           chainStart: SyncSnapshot(xmin: 731, xmax: 731, running: []))),
    ])
    func encodedCursorDecodesToTheSameCursor(cursor: SyncCursor) throws {
        let text = cursor.encoded()
        #expect(text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(SyncCursor(decoding: text) == cursor)
    }

    @Test(arguments: ["10:20:15", "10:20:", "5:5:"])
    func postgresSnapshotTextRoundTrips(text: String) throws {
        #expect(try #require(SyncSnapshot(text: text)).text == text)
    }

    @Test(arguments: ["", "10:20", "20:10:", "10:20:9", "10:20:20", "a:b:", "10:20:11,,12",
                      // What pg_snapshot input refuses: xmin 0, running ids out of order or repeated.
                      "0:0:", "0:5:", "10:20:15,12", "10:20:12,12"])
    func malformedSnapshotTextIsRefused(text: String) {
        #expect(SyncSnapshot(text: text) == nil)
    }

    @Test func cursorWithOnlyPartOfAPositionIsRefused() throws {
        let json = #"{"v":1,"hz":"0","st":2,"tx":"5"}"#
        let text = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(SyncCursor(decoding: text) == nil)
    }
}
