import Domain
import Foundation

/// How far a device is behind the head of its user's feed (the console's sync health).
public enum SyncLag: Sendable, Equatable {
    /// Nothing visible to the user changed after the device's cursor.
    case caughtUp
    /// `changes` rows and removals wait for the device (`more`: at least that many; the count
    /// stops at one page); `since` is the oldest `updated_at` among the waiting rows (nil when
    /// only removals wait).
    case behind(changes: Int, more: Bool, since: Date?)
    /// The cursor's history was pruned: the device's next sync answers 410 and it starts over.
    case mustReset
    /// The stored cursor is not one this server can read (written by another version).
    case unknown
}

extension SyncFeed {
    /// The lag count stops at one page of the default size: "1000+ changes" says enough, and
    /// the console page that asks stays fast (a 5,000-row page of the busiest seeded realtor
    /// took ~0.6 s on a loaded machine).
    public static let lagLimit = defaultLimit

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
