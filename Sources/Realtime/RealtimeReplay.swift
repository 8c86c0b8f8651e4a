import Foundation
import HTTPServer
import JSON
import Postgres
import Store

/// Replay on join: a client that passes the sync cursor of the last event it applied gets the
/// changes it missed before any live one, with no gap and no duplicate at the seam.
///
/// Where the cursor goes: `config.presence.key`. supabase-swift's RealtimeV2 builds the join
/// config from fixed types (broadcast, presence, postgres_changes, private); the presence
/// key is the only free-form string an app can set there (`$0.presence.key = cursor`), and
/// supabase-py passes the presence dict through as given. This server refuses presence, so
/// the key means nothing else here; clients send `""` by default, which means "no replay".
///
/// The seam: the replay is one sync page read from the cursor, and the live registration
/// starts from that page's `next_since` (RealtimeFeed.register: any snapshot taken before the
/// registration is a gap-free start). The page holds what committed before its snapshot and
/// live deltas what committed after it, so a write committing during the join arrives once.
/// The replay is handed to the channel before the registration exists and the channel holds
/// events until its join is answered, so replayed events always precede live ones.
struct RealtimeReplay {
    let changes: [RealtimeChange]
    /// Where live delivery continues (the page's `next_since`).
    let resumeFrom: SyncCursor

    /// The cursor in a join's config, nil when none (absent or empty presence key).
    static func requestedCursor(in config: [String: JSONValue], feed: SyncFeed) throws(RealtimeJoinError) -> SyncCursor? {
        guard case .object(let presence)? = config["presence"] else { return nil }
        switch presence["key"] {
        case nil, .null?, .string("")?:
            return nil
        case .string(let text)?:
            do {
                return try feed.cursor(decoding: text)
            } catch SyncFeedError.epochChanged {
                throw .resyncRequired("that cursor was issued before the server's data was restored from a backup; resync with /v1/sync without since")
            } catch SyncFeedError.invalidCursor {
                throw .invalidCursor("config.presence.key must be a sync cursor (an event's data.cursor or /v1/sync's next_since); join without it and resync with /v1/sync")
            } catch {
                throw .unavailable("the database is unavailable; retry shortly")
            }
        default:
            throw .invalidCursor("config.presence.key must be a string")
        }
    }

    /// Reads what `viewer` may see after `cursor`: at most `limit` rows and removals, within
    /// one sync page's byte bound. Anything more, a pruned history or a cursor this database
    /// did not write is refused: the client catches up with `/v1/sync` and joins again with
    /// the cursor it ends at.
    static func read(_ feed: SyncFeed, viewer: Viewer, from cursor: SyncCursor, limit: Int) throws(RealtimeJoinError) -> RealtimeReplay {
        let page: SyncPage
        do {
            page = try feed.page(viewer: viewer, cursor: cursor, limit: limit)
        } catch SyncFeedError.invalidCursor {
            throw .invalidCursor("this server did not write that cursor; resync with /v1/sync without since")
        } catch SyncFeedError.resyncRequired {
            throw .resyncRequired("the history after that cursor was pruned; resync with /v1/sync without since, then join with its next_since")
        } catch {
            throw .unavailable("the database is unavailable; retry shortly")
        }
        guard !page.hasMore else {
            throw .resyncRequired("more than \(limit) changes since that cursor; catch up with /v1/sync?since=<cursor>, then join with its last next_since")
        }
        guard let epoch = try? feed.epoch.current().epoch else { throw .unavailable("the database is unavailable; retry shortly") }
        return RealtimeReplay(changes: RealtimeChange.changes(from: [page], now: Date(), epoch: epoch), resumeFrom: page.next)
    }
}
