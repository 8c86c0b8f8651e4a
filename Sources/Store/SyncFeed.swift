import Foundation
import Postgres

/// Reads pages of the sync feed (SPEC 6).
///
/// ## Why transaction ids, and why it is gap-free
///
/// Every synced row carries `txid`, the id of the transaction that last wrote it (trigger in
/// migrations/0001). `updated_at` cannot be the cursor: it is `now()`, the writing
/// transaction's *start* time, so a transaction that starts early and commits late lands
/// behind rows that were already handed out. Transaction ids have the same problem in
/// commit order — but a snapshot tells us exactly which ids may still commit:
///
/// Each page runs in one REPEATABLE READ transaction, so all its statements see one snapshot
/// S, whose `xmin` is the smallest transaction id still running when S was taken. Any
/// transaction whose effects S does not show was either running then (id >= xmin by
/// definition of xmin) or started later (id >= S's xmax >= xmin, ids being handed out
/// in increasing order). So **every write a page cannot see carries txid >= that page's xmin.**
///
/// A chain of pages (has_more = true … false) shares one lower bound `lo` and walks the
/// stages in a fixed order, each by (txid, id). When the chain ends, `next_since` becomes
/// W = min(xmin of every page in the chain). Claim: afterwards, every row whose current
/// version has txid < W has been delivered in that version (by this chain or, when its txid
/// is below `lo`, by an earlier one — induction). Proof: such a version committed before every
/// page's snapshot (txid < W <= each xmin, and it is not running) and was not superseded (it
/// is current), so it sat unchanged at one (stage, txid, id) key in every page's snapshot;
/// the chain's pages cover consecutive key ranges from the start to the end, so the page
/// whose range holds the key returned it. Everything else has txid >= W and is read by the
/// next chain, whose lower bound is W. Hence no misses. Duplicates happen (rows with txid >= W
/// that this chain already sent are sent again), which SPEC 6 allows; clients upsert by id.
///
/// Visibility changes that do not touch a row (a listing reassigned makes its tasks visible
/// to the new staff) are recorded as grants/revocations with the writing txid in
/// `sync_access_changes`, so the same argument covers them: a grant or revocation with
/// txid >= lo is acted on by every page of the chain that reads the affected stage.
public struct SyncFeed: Sendable {
    public static let defaultLimit = 1000
    public static let maxLimit = 5000

    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// One page for `viewer` from `cursor`, with at most `limit` rows and removals in total.
    public func page(viewer: Viewer, cursor: SyncCursor, limit: Int) throws -> SyncPage {
        let limit = max(1, min(limit, Self.maxLimit))
        return try pool.withTransaction(isolation: .repeatableRead) { connection in
            try connection.execute("SET TRANSACTION READ ONLY")
            // The first statement fixes the transaction's snapshot; the xmin read here is the
            // one every later statement of this page sees.
            let snapshotRows = try connection.query("""
                SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
                       pg_snapshot_xmax(pg_current_snapshot())::text AS xmax,
                       (SELECT horizon::text FROM sync_horizon) AS horizon
                """)
            guard let snapshot = snapshotRows.first,
                  let xmin = UInt64(try snapshot.decode("xmin", as: String.self)),
                  let xmax = UInt64(try snapshot.decode("xmax", as: String.self)),
                  let horizon = UInt64(try snapshot.decode("horizon", as: String.self))
            else { throw PostgresError(kind: .protocolViolation, message: "unreadable snapshot") }
            // A lower bound no snapshot could have produced was not written by us.
            guard cursor.lower <= xmax, (cursor.position?.watermark ?? 0) <= xmax else { throw SyncFeedError.invalidCursor }
            // Access records at or below the horizon are gone. They matter only if they were
            // pruned after the cursor was issued (horizon moved past `hz`) and reach its lower
            // bound: records pruned earlier committed before the issuing chain's snapshots,
            // which already reflected them, and lower bounds never decrease along a client's
            // chains.
            if cursor.lower > 0 && cursor.lower <= horizon && horizon > cursor.horizon {
                throw SyncFeedError.resyncRequired
            }
            // The horizon the chain started under; a pruning during the chain is caught by the
            // next request.
            let chainHorizon = cursor.position == nil ? horizon : cursor.horizon

            let grants = try self.grants(viewer: viewer, lower: cursor.lower, on: connection)
            let builder = SyncStageQuery(viewer: viewer, lower: cursor.lower, grants: grants)
            var page = SyncPage(next: cursor)
            var remaining = limit
            var last: (stage: SyncStage, txid: UInt64, id: UUID)? = cursor.position.map { ($0.stage, $0.txid, $0.id) }
            let firstStage = cursor.position?.stage ?? .users
            let stages = SyncStage.allCases.filter {
                $0 >= firstStage && ($0 != .removed || (cursor.lower > 0 && !viewer.isAdmin))
            }
            for stage in stages {
                let after = last.flatMap { $0.stage == stage ? (txid: $0.txid, id: $0.id) : nil }
                // One more than fits tells whether the chain continues.
                let rows = try connection.query(builder.query(stage, after: after, limit: remaining + 1))
                for (index, row) in rows.enumerated() {
                    if index == remaining {
                        page.hasMore = true
                        break
                    }
                    let txidText: String = try row.decode("txid")
                    guard let txid = UInt64(txidText) else { throw PostgresError(kind: .protocolViolation, message: "bad txid") }
                    last = (stage, txid, try row.decode("id"))
                    if let type: String = try row.decode("gone") {
                        page.removed.append(.init(type: type, id: try row.decode("entity")))
                    } else if let json: String = try row.decode("json") {
                        page.rows[stage, default: []].append(json)
                    }
                }
                if page.hasMore { break }
                remaining -= rows.count
            }
            let watermark = min(cursor.position?.watermark ?? xmin, xmin)
            if page.hasMore, let last {
                page.next = SyncCursor(lower: cursor.lower, horizon: chainHorizon,
                                       position: .init(stage: last.stage, txid: last.txid, id: last.id, watermark: watermark))
            } else {
                page.next = SyncCursor(lower: max(watermark, cursor.lower), horizon: chainHorizon)
                page.hasMore = false
            }
            return page
        }
    }

    /// Entities granted to the viewer since `lower` (none for admins, who see everything, or
    /// for a full snapshot, which sends everything anyway).
    private func grants(viewer: Viewer, lower: UInt64, on connection: PostgresConnection) throws -> SyncStageQuery.Grants {
        var grants = SyncStageQuery.Grants()
        guard lower > 0, !viewer.isAdmin else { return grants }
        let rows = try connection.query("""
            SELECT DISTINCT entity_type, entity_id FROM sync_access_changes
            WHERE user_id = \(viewer.userID) AND granted AND txid >= \(String(lower))::xid8
            """)
        for row in rows {
            let id: UUID = try row.decode("entity_id")
            switch try row.decode("entity_type", as: String.self) {
            case "listing": grants.listings.append(id)
            case "task": grants.tasks.append(id)
            default: grants.activities.append(id)
            }
        }
        return grants
    }

    /// Deletes access records older than `keep` and moves the horizon past them; cursors
    /// from before then answer `resyncRequired`. Returns how many records were deleted.
    @discardableResult
    public func prune(keep: Duration) throws -> Int {
        let seconds = Int(keep.components.seconds)
        let rows = try pool.query("SELECT dispatch_prune_sync_history(make_interval(secs => \(seconds))) AS deleted")
        return try rows.first?.decode("deleted", as: Int.self) ?? 0
    }
}
