import Foundation

/// The opaque `since` / `next_since` of `GET /v1/sync`: base64url (no padding) of a small
/// versioned JSON object. Clients must treat it as opaque; the format may change with `v`.
///
/// - `lo`: the chain's lower bound, an xid8 (as decimal text). A page returns rows whose
///   writing transaction id is >= `lo` (plus rows made newly visible by a grant since `lo`).
/// - Mid-chain only (`has_more` was true): `st`/`tx`/`id` — the position of the last row
///   handed out (stage index, its txid, its id) — and `wm`, the smallest snapshot xmin seen
///   by the chain's pages so far. When a chain completes, `next_since` is `{v, lo: wm, hz}`.
/// - `hz`: the pruning horizon when the chain's first page was read. A cursor is refused
///   (410) only when history was pruned *after* it was issued and reaches its lower bound: a
///   snapshot read after a pruning already reflects what was pruned (see SyncFeed).
///
/// Why xids and not timestamps: see SyncFeed (the gap-free argument).
public struct SyncCursor: Sendable, Equatable {
    public struct Position: Sendable, Equatable {
        public var stage: SyncStage
        public var txid: UInt64
        public var id: UUID
        public var watermark: UInt64

        public init(stage: SyncStage, txid: UInt64, id: UUID, watermark: UInt64) {
            self.stage = stage
            self.txid = txid
            self.id = id
            self.watermark = watermark
        }
    }

    public static let version = 1
    /// No `since`: a full snapshot.
    public static let initial = SyncCursor(lower: 0, horizon: 0, position: nil)

    public var lower: UInt64
    public var horizon: UInt64
    public var position: Position?

    public init(lower: UInt64, horizon: UInt64, position: Position? = nil) {
        self.lower = lower
        self.horizon = horizon
        self.position = position
    }

    private struct Wire: Codable {
        var v: Int
        var lo: String
        var hz: String
        var wm: String?
        var st: Int?
        var tx: String?
        var id: String?
    }

    public func encoded() -> String {
        var wire = Wire(v: Self.version, lo: String(lower), hz: String(horizon))
        if let position {
            wire.wm = String(position.watermark)
            wire.st = position.stage.rawValue
            wire.tx = String(position.txid)
            wire.id = position.id.uuidString.lowercased()
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding a struct of strings and ints cannot fail; an empty cursor would still be
        // rejected as invalid rather than misread.
        let data = (try? encoder.encode(wire)) ?? Data()
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Parses a client's cursor; nil when it is not one this server wrote (bad base64, JSON,
    /// version or fields).
    public init?(decoding text: String) {
        guard !text.isEmpty, text.count <= 512,
              text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let wire = try? JSONDecoder().decode(Wire.self, from: data),
              wire.v == Self.version, let lower = UInt64(wire.lo), let horizon = UInt64(wire.hz)
        else { return nil }
        self.lower = lower
        self.horizon = horizon
        switch (wire.wm, wire.st, wire.tx, wire.id) {
        case (nil, nil, nil, nil):
            position = nil
        case let (wm?, st?, tx?, id?):
            guard let watermark = UInt64(wm), let stage = SyncStage(rawValue: st), let txid = UInt64(tx),
                  let uuid = UUID(uuidString: id), watermark >= lower
            else { return nil }
            position = Position(stage: stage, txid: txid, id: uuid, watermark: watermark)
        default:
            return nil
        }
    }
}
