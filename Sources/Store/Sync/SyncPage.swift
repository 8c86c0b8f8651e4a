import Foundation

/// One response of the sync feed.
public struct SyncPage: Sendable {
    /// An entry of `removed`: the caller can no longer see this row (type is `user`,
    /// `listing`, `task` or `activity`); clients drop it and its children.
    public struct Removal: Sendable, Hashable {
        public var type: String
        public var id: String
    }

    /// One row or removal of the page, in the order the feed walked them (a parent sent with
    /// its child comes right before the child), with the cursor after it: a sync resumed
    /// from `after` returns exactly what follows this entry (realtime events carry it).
    /// A parent sent with its child is not at a position of the chain, so its `after` is the
    /// one before it: resuming there sends it again (never a gap; clients upsert by id).
    public struct Entry: Sendable {
        /// `rows[stage][index]`, or `removed[index]` for `.removed`.
        public var stage: SyncStage
        public var index: Int
        public var after: SyncCursor
    }

    /// Row JSON texts (from `dispatch_json`) per stage, in (txid, id) order.
    public var rows: [SyncStage: [String]] = [:]
    public var removed: [Removal] = []
    /// Every row and removal above, in walk order.
    public var entries: [Entry] = []
    public var hasMore = false
    public var next: SyncCursor

    public init(next: SyncCursor) {
        self.next = next
    }

    /// What `json` writes after `has_more` for a page with nothing in it.
    static let emptyTail = SyncStage.allCases.filter { $0 != .removed }.map { ",\"\($0.key)\":[]" }.joined() + ",\"removed\":[]}"

    /// Nothing to hand out: a long-poll keeps waiting.
    public var isEmpty: Bool { removed.isEmpty && rows.values.allSatisfy(\.isEmpty) }

    /// The response body. Rows are already JSON, so they are spliced, not re-encoded.
    public func json(epoch: String) -> String {
        var out = "{\"next_since\":\"" + next.encoded(epoch: epoch) + "\",\"has_more\":" + (hasMore ? "true" : "false")
        // An idle poll's page: everything after has_more is a constant (interpolating it per
        // page was a tenth of an idle sync's instructions, bench/callgrind).
        if isEmpty { return out + Self.emptyTail }
        for stage in SyncStage.allCases where stage != .removed {
            out += ",\"\(stage.key)\":[" + (rows[stage] ?? []).joined(separator: ",") + "]"
        }
        // Types come from a fixed list and ids from uuid::text, so neither needs escaping.
        out += ",\"removed\":[" + removed.map { "{\"type\":\"\($0.type)\",\"id\":\"\($0.id)\"}" }.joined(separator: ",") + "]}"
        return out
    }
}
