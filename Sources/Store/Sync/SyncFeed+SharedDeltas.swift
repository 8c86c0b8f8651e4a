import Foundation
import Postgres

/// Delta pages for many viewers from one read.
///
/// A write everyone sees wakes every parked request at once; read one by one, 200 users
/// are 200 page reads of ~9 statements each. `sharedPages` answers viewers who share a plain
/// delta cursor S (`since` set, not mid-chain) with four statements in one REPEATABLE READ
/// READ ONLY transaction, whatever their number: the snapshot F, the realtors with access
/// records (left out), every row of the chain's range with the realtors who may see it
/// (SyncSharedDeltaQuery), and nothing else; each page is then cut in Swift.
///
/// ## Why each shared page is the page `page(viewer:cursor:limit:)` returns
///
/// Both read in a REPEATABLE READ transaction whose first statement takes F, and a plain
/// cursor starts a chain at F, so both select from the same range (S, F] (`inChain`) with the
/// same stage order and (txid, id) order. (An idle per-user page answers from an autocommit
/// snapshot instead: an empty page ending at that snapshot, which is what the stages return
/// for an empty range too.) For a viewer kept here:
/// - *No access record of the viewer* after S or not visible in F (one statement checks all
///   realtors; admins' records are never read by the per-user path). So its grants are
///   empty (each stage selects exactly `inChain`), its removals stage returns nothing, and
///   its late grants are empty.
/// - *Visibility*: the per-user stage keeps a row when the rule holds for the viewer; here
///   the same rule (`Visibility`, the row-at-a-time form of the same predicate) is tested for
///   each candidate of the row, and candidates include everyone the rule can hold for
///   (SyncSharedDeltaQuery). Users rows are sent to everyone, deactivated ones as removals for
///   realtors (`gone`); admins see every row.
/// - *Parents*: with no late grants a parent is suspect only when `parent_late` — a column
///   that does not depend on the viewer, read here like on the per-user path. A viewer with
///   any visible row whose parent is late is left out; for the rest no parent is sent, as
///   `parentsToSend` would return none. (Inside the transaction nothing after F is visible,
///   so `parent_late` is false unless F was widened by `fallback`.)
/// - *Cutting*: `cut` replays what the per-user path does with a stage's rows — the stage's
///   `LIMIT remaining + 1`, the byte window of SyncStageQuery.bounded (running sums of
///   `octet_length(json) + 1`, UTF-8 bytes of the same text), and the page loop of
///   `stagesPage` with the same cursors (`resumeCursor`).
/// The shared read returns at most `maxSharedRows` rows; with more, nobody is answered here.
extension SyncFeed {
    /// Rows one shared read may return; a larger delta is read viewer by viewer.
    static let maxSharedRows = 5000

    /// Pages for many viewers that share one plain delta cursor (`cursor.since != nil`,
    /// `cursor.position == nil`), read with ONE snapshot and a constant number of statements
    /// whatever the number of viewers. Viewers missing from the result could not be answered
    /// from the shared read (see the doc comment's conditions); the caller reads them one by one.
    public func sharedPages(viewers: [Viewer], cursor: SyncCursor, limit: Int) throws -> [Viewer: SyncPage] {
        guard let since = cursor.since, cursor.position == nil, !viewers.isEmpty else { return [:] }
        let limit = max(1, min(limit, Self.maxLimit))
        return try pool.withConnection { connection in
            try connection.withTransaction(isolation: .repeatableRead) { connection in
                try beginDeltaRead(on: connection)
                let (current, horizon) = try snapshotAndHorizon(on: connection)
                // A cursor the per-user path refuses is refused there, with its own error.
                do { try validate(cursor, current: current, horizon: horizon) } catch is SyncFeedError { return [:] }
                let query = SyncSharedDeltaQuery(since: since, chainStart: current, anyViewer: viewers[0])
                var realtors = Set(viewers.filter { !$0.isAdmin }.map(\.userID))
                if !realtors.isEmpty {
                    for row in try connection.queryPrepared(name: "sync_shared_access", query.realtorsWithAccessChanges(Array(realtors))) {
                        realtors.remove(try row.decode("user_id", as: UUID.self))
                    }
                }
                // Prepared: its text is the same for every read (snapshots and viewers are
                // bound), and its generic plan (beginDeltaRead) is made once per connection
                // instead of planning this large statement every time (docs/performance.md "Realtime").
                let rows = try connection.queryPrepared(name: "sync_shared_rows", query.rows(realtors: Array(realtors), cap: Self.maxSharedRows + 1))
                    .map(SharedRow.init)
                guard rows.count <= Self.maxSharedRows else { return [:] }
                // Each realtor's rows, in the read's order, from one pass over the rows' viewers
                // (not one pass over all rows per viewer); admins see every row.
                var visible = Dictionary(uniqueKeysWithValues: realtors.map { ($0, [SharedRow]()) })
                for row in rows {
                    for user in row.viewers ?? realtors where visible[user] != nil { visible[user]?.append(row) }
                }
                var pages: [Viewer: SyncPage] = [:]
                for viewer in Set(viewers) {
                    guard let rows = viewer.isAdmin ? rows : visible[viewer.userID],
                          !rows.contains(where: \.parentLate) else { continue }
                    pages[viewer] = cut(rows, viewer: viewer, cursor: cursor, chainStart: current, horizon: horizon, limit: limit)
                }
                return pages
            }
        }
    }

    /// One row of the shared read (SyncSharedDeltaQuery.rows).
    struct SharedRow {
        var stage: SyncStage
        var txid: UInt64
        var id: UUID
        var entity: String
        var json: String
        var deactivated: Bool
        var parentLate: Bool
        /// Realtors who may see it; nil: everyone (a users row).
        var viewers: Set<UUID>?

        init(_ row: PostgresRow) throws {
            guard let stage = SyncStage(rawValue: try row.decode("stage")), let txid = UInt64(try row.decode("txid", as: String.self)) else {
                throw PostgresError(kind: .protocolViolation, message: "unreadable shared sync row")
            }
            self.stage = stage
            self.txid = txid
            id = try row.decode("id")
            entity = try row.decode("entity")
            json = try row.decode("json")
            deactivated = try row.decode("deactivated")
            parentLate = try row.decode("parent_late")
            viewers = try row.decode("viewers", as: String?.self).map {
                Set($0.split(separator: ",").compactMap { UUID(uuidString: String($0)) })
            }
        }
    }

    /// The page `stagesPage` builds from these rows (the viewer's rows of the chain's range,
    /// in stage order) when no parent is suspect and no removals stage row exists.
    private func cut(_ rows: [SharedRow], viewer: Viewer, cursor: SyncCursor, chainStart: SyncSnapshot, horizon: UInt64,
                     limit: Int) -> SyncPage {
        var page = SyncPage(next: cursor)
        var remaining = limit
        var last: (stage: SyncStage, txid: UInt64, id: UUID)?
        let budget = max(maxPageBytes - Self.envelopeBytes, 0)
        var used = 0
        let byStage = Dictionary(grouping: rows, by: \.stage)
        for stage in SyncStage.allCases where stage != .removed {
            for (row, fits) in Self.window(byStage[stage] ?? [], limit: max(remaining, 0) + 1, bytes: budget - used, pageEmpty: page.isEmpty) {
                let cost = SyncStageQuery.bytes(json: row.json)
                if !fits || (!page.isEmpty && (1 > remaining || used + cost > budget)) {
                    page.hasMore = true
                    break
                }
                remaining -= 1
                used += cost
                last = (stage, row.txid, row.id)
                let after = resumeCursor(cursor, last: last, horizon: horizon, chainStart: chainStart)
                if stage == .users, row.deactivated, !viewer.isAdmin {
                    page.entries.append(.init(stage: .removed, index: page.removed.count, after: after))
                    page.removed.append(.init(type: "user", id: row.entity))
                } else {
                    page.entries.append(.init(stage: stage, index: page.rows[stage]?.count ?? 0, after: after))
                    page.rows[stage, default: []].append(row.json)
                }
            }
            if page.hasMore { break }
        }
        if page.hasMore, last != nil {
            page.next = resumeCursor(cursor, last: last, horizon: horizon, chainStart: chainStart)
        } else {
            page.hasMore = false
            page.next = SyncCursor(since: chainStart, horizon: horizon)
            if !page.entries.isEmpty { page.entries[page.entries.count - 1].after = page.next }
        }
        return page
    }

    /// What a stage query returns for these rows (SyncStageQuery.query): the first `limit`,
    /// then the byte window of SyncStageQuery.bounded with its `fits`.
    private static func window(_ rows: [SharedRow], limit: Int, bytes: Int, pageEmpty: Bool) -> [(SharedRow, Bool)] {
        var running = 0
        var out: [(SharedRow, Bool)] = []
        for (index, row) in rows.prefix(limit).enumerated() {
            let n = index + 1, size = SyncStageQuery.bytes(json: row.json)
            running += size
            if running - size < bytes || n <= 2 { out.append((row, running <= bytes || (n == 1 && pageEmpty))) }
        }
        return out
    }
}
