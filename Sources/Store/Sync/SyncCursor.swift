import Domain
import Foundation

/// The opaque `since` / `next_since` of `GET /v1/sync`: base64url (no padding) of a small
/// versioned JSON object. Clients must treat it as opaque; the format may change with `v`.
///
/// - `s`: the snapshot the client's data reflects (absent: a full snapshot is wanted). A page
///   returns rows whose writing transaction is *not visible* in it, i.e. committed later
///   (plus rows made newly visible by a grant committed later). Why snapshots and not
///   timestamps: see SyncFeed.
/// - `hz`: the pruning horizon when the cursor's chain started (410 logic, see SyncFeed).
/// - Mid-chain only (`has_more` was true): `st`/`tx`/`id`, the position of the last row handed
///   out (stage, its txid, its id), and `cs`, the snapshot of the chain's first page, which
///   becomes `s` of the `next_since` that ends the chain.
/// - `ep`: the database epoch the cursor was issued in (DatabaseEpoch, migrations/0023). It is
///   not part of the value: it is written when a cursor leaves the server (`encoded(epoch:)`)
///   and checked when one comes back (`SyncFeed.cursor(decoding:)`), so a cursor from before a
///   restore answers 410 instead of naming transactions of another cluster.
public struct SyncCursor: Sendable, Equatable {
    public struct Position: Sendable, Equatable {
        public var stage: SyncStage
        public var txid: UInt64
        public var id: UUID
        public var chainStart: SyncSnapshot

        public init(stage: SyncStage, txid: UInt64, id: UUID, chainStart: SyncSnapshot) {
            self.stage = stage
            self.txid = txid
            self.id = id
            self.chainStart = chainStart
        }
    }

    public static let version = 1
    /// No `since`: a full snapshot.
    public static let initial = SyncCursor(since: nil, horizon: 0, position: nil)
    /// Cursors are query parameters; request lines are limited to 8 KiB.
    static let maxEncodedLength = 7000

    public var since: SyncSnapshot?
    public var horizon: UInt64
    public var position: Position?

    public init(since: SyncSnapshot?, horizon: UInt64, position: Position? = nil) {
        self.since = since
        self.horizon = horizon
        self.position = position
    }

    /// Rows written by transactions below this were all seen (0 for a full snapshot).
    public var lower: UInt64 { since?.xmin ?? 0 }

    private struct Wire: Codable {
        var v: Int
        var s: String?
        var hz: String
        var st: Int?
        var tx: String?
        var id: String?
        var cs: String?
        var ep: String?
    }

    /// The text handed to clients, stamped with `epoch`. Without one (nil) the text is only fit
    /// for comparing cursors inside this process (it is refused after any restore).
    public func encoded(epoch: String? = nil) -> String {
        SyncCursorMemo.shared.text(self, epoch: epoch) { encodedNow(epoch: epoch) }
    }

    private func encodedNow(epoch: String?) -> String {
        var wire = Wire(v: Self.version, s: since?.text, hz: String(horizon), ep: epoch)
        if let position {
            wire.st = position.stage.rawValue
            wire.tx = String(position.txid)
            wire.id = position.id.uuidString.lowercased()
            wire.cs = position.chainStart.text
        }
        return OpaqueToken.encode(wire, sortedKeys: true)
    }

    /// Parses a client's cursor; nil when it is not one this server wrote (bad base64, JSON,
    /// version or fields). The epoch is not checked: see `SyncFeed.cursor(decoding:)`.
    public init?(decoding text: String) {
        guard let (cursor, _) = Self.decodedWithEpoch(text) else { return nil }
        self = cursor
    }

    /// The cursor and the epoch it carries (nil: issued before cursors carried one).
    public static func decodedWithEpoch(_ text: String) -> (SyncCursor, String?)? {
        SyncCursorMemo.shared.value(text) {
            guard let wire = wire(text), let cursor = SyncCursor(wire: wire) else { return nil }
            return (cursor, wire.ep)
        }
    }

    private static func wire(_ text: String) -> Wire? {
        // The base64url alphabet, checked byte-wise: Character.isLetter/isNumber (Unicode
        // property lookups) were a tenth of an idle sync's instructions (bench/callgrind).
        guard !text.isEmpty, text.utf8.count <= Self.maxEncodedLength, text.utf8.allSatisfy(Self.isBase64URL)
        else { return nil }
        return OpaqueToken.decode(Wire.self, from: text)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    private init?(wire: Wire) {
        guard wire.v == Self.version, let horizon = UInt64(wire.hz) else { return nil }
        if let s = wire.s {
            guard let snapshot = SyncSnapshot(text: s) else { return nil }
            since = snapshot
        } else {
            since = nil
        }
        self.horizon = horizon
        switch (wire.st, wire.tx, wire.id, wire.cs) {
        case (nil, nil, nil, nil):
            position = nil
        case let (st?, tx?, id?, cs?):
            guard let stage = SyncStage(rawValue: st), let txid = UInt64(tx), let uuid = UUID(uuidString: id),
                  let chainStart = SyncSnapshot(text: cs)
            else { return nil }
            position = Position(stage: stage, txid: txid, id: uuid, chainStart: chainStart)
        default:
            return nil
        }
    }
}
