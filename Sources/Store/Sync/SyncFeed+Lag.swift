import Domain
import Foundation

/// How far a device is behind the head of its user's feed (the console's sync health).
public enum SyncLag: Sendable, Equatable {
    /// Nothing visible to the user changed after the device's cursor.
    case caughtUp
    /// `changes` rows and removals wait for the device (`more`: at least that many; the count
    /// stops at `SyncFeed.lagLimit`); `since` is the oldest `updated_at` among the counted rows
    /// (nil when only removals wait).
    case behind(changes: Int, more: Bool, since: Date?)
    /// The cursor's history was pruned: the device's next sync answers 410 and it starts over.
    case mustReset
    /// The stored cursor is not one this server can read (written by another version).
    case unknown
}

extension SyncFeed {
    /// The lag count stops at 100 changes: "100+ changes waiting" tells an operator the device
    /// is well behind as clearly as "1000+" did, and the read renders every counted row as its
    /// sync page would, so its cost grows with this bound. On the 100,000-task demo database a
    /// device 50 rows into its first sync took ~92 ms (median, debug build) to read at 1,000
    /// and ~37 ms at 100; 5,000 took ~0.6 s (docs/operators/console.md, page timings).
    public static let lagLimit = 100

    /// The lag of a device holding `cursor` (its last `next_since`) for `viewer`: the page the
    /// device's next sync would get, read by the feed's own code (read-only), counted.
    public func lag(viewer: Viewer, cursor text: String) throws -> SyncLag {
        guard let cursor = SyncCursor(decoding: text) else { return .unknown }
        let page: SyncPage
        do {
            page = try self.page(viewer: viewer, cursor: cursor, limit: Self.lagLimit)
        } catch SyncFeedError.resyncRequired {
            return .mustReset
        } catch SyncFeedError.invalidCursor {
            return .unknown
        }
        guard !page.isEmpty else { return .caughtUp }
        let changes = page.removed.count + page.rows.values.reduce(0) { $0 + $1.count }
        return .behind(changes: changes, more: page.hasMore, since: Self.oldestUpdate(in: page))
    }

    /// The oldest `updated_at` of the page's rows (every synced row has one, contract §1).
    static func oldestUpdate(in page: SyncPage) -> Date? {
        var oldest: Date?
        for json in page.rows.values.joined() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
                  let text = object["updated_at"] as? String, let date = Timestamp.parse(text) else { continue }
            oldest = min(oldest ?? date, date)
        }
        return oldest
    }
}
