import Foundation
import Postgres

/// Reads pages of the sync feed (contract §6).
///
/// ## Why transaction ids and snapshots, and why it is gap-free
///
/// Every synced row carries `txid`, the id of the transaction that last wrote it (trigger in
/// migrations/0001). `updated_at` cannot be the cursor: it is `now()`, the writing
/// transaction's *start* time, so a transaction that starts early and commits late lands
/// behind rows already handed out. Transaction ids do not follow commit order either — but a
/// snapshot records exactly which ids had committed when it was taken: those below its
/// `xmin`, and those below its `xmax` not listed as running (`pg_visible_in_snapshot`). Every
/// transaction that commits later is, by construction, not visible in it.
///
/// Each page runs in one REPEATABLE READ transaction, so all its statements see one snapshot.
/// A chain of pages (has_more = true … false) walks the stages in a fixed order, each by
/// (txid, id), and selects rows written by transactions *not visible in `since`* (S, the
/// cursor's snapshot) but *visible in F*, the snapshot of the chain's first page. When the
/// chain ends, `next_since` carries F.
///
/// Claim: after a chain, the client holds (at least) the version current at F of every row
/// visible to it at F. Proof: take such a row R with current-at-F version V. If V is still
/// current, every page of the chain saw V at one unchanging (stage, txid, id) key, and the
/// pages cover consecutive key ranges, so the page holding the key returned V if V is in the
/// chain's range (S, F] or R is below a grant in (S, F] and R was visible then (if not, it
/// stopped being visible after F: a revocation after F, which the next chain handles). If V
/// is in neither, V was visible in S and R was visible at S (every way to become visible
/// writes a grant naming the row or its parent — migrations 0006, 0008), so the previous
/// chain delivered it (induction; a full snapshot has no lower bound). If V was replaced
/// after F, the newer version is in the next chain's range. So nothing is missed.
/// Rows that changed while the chain ran may come twice (once here, once in the next chain);
/// contract §6 allows duplicates and clients upsert by id. Without concurrent writes there are none,
/// so a long-poll is not woken by rows the client already has.
///
/// Bounding by F also keeps parents first across the pages of a chain: a task created after
/// F waits for the next chain together with its children. The remaining cases — a parent
/// rewritten or granted after F — are covered by sending such parents with their children
/// (SyncFeed+Parents).
///
/// Visibility changes that do not touch a row (a listing reassigned makes its tasks visible
/// to the new staff) are recorded as grants/revocations with the writing txid in
/// `sync_access_changes` (migrations/0006, 0008), so the same argument covers them.
public struct SyncFeed: Sendable {
    public static let defaultLimit = 1000
    public static let maxLimit = 5000
    /// SYNC_PAGE_MAX_BYTES: a response stops at about this many bytes of JSON, whatever
    /// `limit` says; one row larger than this goes out alone.
    public static let defaultMaxPageBytes = 2 * 1024 * 1024
    public static let minimumMaxPageBytes = 16 * 1024
    /// Reserved in every page for the envelope: keys, brackets and `next_since` (≤ 7000).
    static let envelopeBytes = 8 * 1024

    public let pool: PostgresPool
    public let maxPageBytes: Int
    /// The epoch every cursor handed out carries and every cursor taken back must carry.
    public let epoch: DatabaseEpoch

    public init(pool: PostgresPool, maxPageBytes: Int = SyncFeed.defaultMaxPageBytes) {
        self.pool = pool
        self.maxPageBytes = max(maxPageBytes, Self.minimumMaxPageBytes)
        epoch = DatabaseEpoch(pool: pool)
    }

    /// A client's cursor: `invalidCursor` when this server cannot have written it,
    /// `epochChanged` when it was issued before the data was restored (DatabaseEpoch).
    public func cursor(decoding text: String) throws -> SyncCursor {
        guard let (cursor, epoch) = SyncCursor.decodedWithEpoch(text) else { throw SyncFeedError.invalidCursor }
        guard try self.epoch.accepts(epoch) else { throw SyncFeedError.epochChanged }
        return cursor
    }

    /// `cursor` as handed to clients, stamped with the current epoch.
    public func encoded(_ cursor: SyncCursor) throws -> String {
        cursor.encoded(epoch: try epoch.current().epoch)
    }

    /// One page for `viewer` from `cursor`, with at most `limit` rows and removals in total
    /// and at most `maxPageBytes` of JSON (but always at least one row).
    public func page(viewer: Viewer, cursor: SyncCursor, limit: Int) throws -> SyncPage {
        let limit = max(1, min(limit, Self.maxLimit))
        return try pool.withConnection { connection in
            // The most common request, a delta with nothing new, is answered by one statement
            // (see idlePage); anything else reads the stages.
            if let since = cursor.since, cursor.position == nil,
               let idle = try idlePage(viewer: viewer, cursor: cursor, since: since, on: connection) {
                return idle
            }
            return try connection.withTransaction(isolation: .repeatableRead) { connection in
                try stagesPage(viewer: viewer, cursor: cursor, limit: limit, on: connection)
            }
        }
    }

    /// The page from the stages, inside a REPEATABLE READ transaction (one snapshot).
    func stagesPage(viewer: Viewer, cursor: SyncCursor, limit: Int, on connection: PostgresConnection) throws -> SyncPage {
        // A delta's statements run with generic plans (beginDeltaRead); a full snapshot's keep
        // custom ones (they read whole tables, where the viewer's id may change the plan).
        try beginDeltaRead(on: connection, delta: cursor.since != nil)
        // The first statement fixes the transaction's snapshot: this is the snapshot every
        // later statement of the page reads with.
        let (current, horizon) = try snapshotAndHorizon(on: connection)
        try validate(cursor, current: current, horizon: horizon)
        let chainStart = cursor.position?.chainStart ?? current
        let chainHorizon = cursor.position == nil ? horizon : cursor.horizon

        let builder = SyncStageQuery(viewer: viewer, since: cursor.since, chainStart: chainStart, grants: .init())
        let grants = try self.grants(viewer: viewer, builder: builder, on: connection)
        let query = SyncStageQuery(viewer: viewer, since: cursor.since, chainStart: chainStart, grants: grants)
        let late = try lateGrants(viewer: viewer, chainStart: chainStart, on: connection)
        var page = SyncPage(next: cursor)
        var remaining = limit
        var last: (stage: SyncStage, txid: UInt64, id: UUID)? = cursor.position.map { ($0.stage, $0.txid, $0.id) }
        // Listings, tasks and activities this page holds (a child's parent need not be repeated).
        var sent: Set<ParentRef> = []
        let firstStage = cursor.position?.stage ?? .users
        let stages = SyncStage.allCases.filter {
            $0 >= firstStage && ($0 != .removed || (cursor.since != nil && !viewer.isAdmin))
        }
        // Row JSON may fill the budget less what the envelope needs (keys, next_since).
        let budget = max(maxPageBytes - Self.envelopeBytes, 0)
        var used = 0
        for stage in stages {
            let after = last.flatMap { $0.stage == stage ? (txid: $0.txid, id: $0.id) : nil }
            // One more than fits tells whether the chain continues.
            let rows = try connection.query(query.query(stage, after: after, limit: max(remaining, 0) + 1,
                                                        bytes: budget - used, pageEmpty: page.isEmpty)).map(SyncStageRow.init)
            let ancestors = try self.ancestors(of: rows.filter(\.fits), lateGrants: late, sent: sent, bytes: budget - used,
                                               query: query, on: connection)
            for row in rows {
                // A row and the parents it needs share a page; the first row of a page always
                // fits, so a chain moves on even at limit 1 or past a row larger than the budget.
                let parents = row.fits ? parentsToSend(for: row, ancestors: ancestors, lateGrants: late, sent: sent) : nil
                let parentBytes = (parents ?? []).reduce(0) { $0 + SyncStageQuery.bytes(json: ancestors[$1]?.json) }
                let cost = SyncStageQuery.bytes(json: row.json) + parentBytes
                // (`fits` is false only after a row that fits, so this never ends a page empty.)
                if !row.fits || (!page.isEmpty && (parents == nil || 1 + (parents?.count ?? 0) > remaining || used + cost > budget)) {
                    page.hasMore = true
                    break
                }
                for parent in parents ?? [] {
                    if let ancestor = ancestors[parent], let parentStage = parent.stage {
                        page.entries.append(.init(stage: parentStage, index: page.rows[parentStage]?.count ?? 0,
                                                  after: resumeCursor(cursor, last: last, horizon: chainHorizon, chainStart: chainStart)))
                        page.rows[parentStage, default: []].append(ancestor.json)
                        sent.insert(parent)
                    }
                }
                remaining -= 1 + (parents?.count ?? 0)
                used += cost
                last = (stage, row.txid, row.id)
                let after = resumeCursor(cursor, last: last, horizon: chainHorizon, chainStart: chainStart)
                if let type = row.gone {
                    page.entries.append(.init(stage: .removed, index: page.removed.count, after: after))
                    page.removed.append(.init(type: type, id: row.entity))
                } else if let json = row.json {
                    page.entries.append(.init(stage: stage, index: page.rows[stage]?.count ?? 0, after: after))
                    page.rows[stage, default: []].append(json)
                    if let kind = [SyncStage.listings: "listing", .tasks: "task", .activities: "activity"][stage] {
                        sent.insert(ParentRef(kind: kind, id: row.entity))
                    }
                }
            }
            if page.hasMore { break }
        }
        if page.hasMore, last != nil {
            page.next = resumeCursor(cursor, last: last, horizon: chainHorizon, chainStart: chainStart)
        } else {
            page.hasMore = false
            page.next = SyncCursor(since: chainStart, horizon: chainHorizon)
            // After the chain's last entry, the chain's end is the same place, and the one
            // `/v1/sync` itself hands out.
            if !page.entries.isEmpty { page.entries[page.entries.count - 1].after = page.next }
        }
        return page
    }

    /// Where a sync resumes to get what follows the row at `last` (nil: nothing of the page's
    /// chain handed out yet): the same mid-chain cursor a page ending there would return.
    func resumeCursor(_ cursor: SyncCursor, last: (stage: SyncStage, txid: UInt64, id: UUID)?, horizon: UInt64,
                              chainStart: SyncSnapshot) -> SyncCursor {
        guard let last else { return cursor }
        return SyncCursor(since: cursor.since, horizon: horizon,
                          position: .init(stage: last.stage, txid: last.txid, id: last.id, chainStart: chainStart))
    }

    /// The current snapshot and pruning horizon, read by one prepared statement; as the first
    /// statement of a transaction it fixes the snapshot every later statement reads with.
    func snapshotAndHorizon(on connection: PostgresConnection) throws -> (SyncSnapshot, UInt64) {
        try snapshotAndHorizon(connection.queryPrepared(name: "sync_snapshot", """
            SELECT pg_current_snapshot()::text AS snapshot, (SELECT horizon::text FROM sync_horizon) AS horizon
            """))
    }

    /// The current snapshot (widened when too long, see `fallback`) and pruning horizon from
    /// a row with `snapshot` and `horizon` text columns.
    func snapshotAndHorizon(_ rows: PostgresRows) throws -> (SyncSnapshot, UInt64) {
        guard let first = rows.first,
              let current = SyncSnapshot(text: try first.decode("snapshot", as: String.self)) ?? fallback(first),
              let horizon = UInt64(try first.decode("horizon", as: String.self))
        else { throw PostgresError(kind: .protocolViolation, message: "unreadable snapshot") }
        return (current, horizon)
    }

    /// Refuses cursors this database cannot have written and those whose history is pruned.
    func validate(_ cursor: SyncCursor, current: SyncSnapshot, horizon: UInt64) throws {
        // A snapshot from the future was not written by this server (or this database).
        guard (cursor.since?.xmax ?? 0) <= current.xmax, (cursor.position?.chainStart.xmax ?? 0) <= current.xmax else {
            throw SyncFeedError.invalidCursor
        }
        // Access records at or below the horizon are gone. They matter only if they were
        // pruned after the cursor's chain started (the horizon moved past `hz`) and reach
        // its lower bound: records pruned earlier had committed before that chain's first
        // snapshot, which already reflected them, and a client's lower bounds never
        // decrease.
        if cursor.lower > 0 && cursor.lower <= horizon && horizon > cursor.horizon {
            throw SyncFeedError.resyncRequired
        }
    }

    /// With more running transactions than a cursor can carry, SyncSnapshot(text:) refuses
    /// the list; keep xmin and treat everything after it as unseen (more repeats, no misses).
    private func fallback(_ row: PostgresRow) -> SyncSnapshot? {
        guard let text: String = try? row.decode("snapshot"),
              let xmin = text.split(separator: ":").first.flatMap({ UInt64($0) }) else { return nil }
        return SyncSnapshot(xmin: xmin, xmax: xmin, running: [])
    }

    /// Entities granted to the viewer after the cursor's snapshot (none for admins, who see
    /// everything, or for a full snapshot, which sends everything anyway).
    private func grants(viewer: Viewer, builder: SyncStageQuery, on connection: PostgresConnection) throws -> SyncStageQuery.Grants {
        var grants = SyncStageQuery.Grants()
        guard builder.since != nil, !viewer.isAdmin else { return grants }
        let rows = try connection.query("""
            SELECT DISTINCT entity_type, entity_id FROM sync_access_changes c
            WHERE user_id = \(viewer.userID) AND granted AND \(builder.inChain("c.txid"))
            """)
        for row in rows {
            let id: UUID = try row.decode("entity_id")
            switch try row.decode("entity_type", as: String.self) {
            case "listing": grants.listings.append(id)
            case "task": grants.tasks.append(id)
            case "activity": grants.activities.append(id)
            case let other: throw UnknownStoredValue(column: "sync_access_changes.entity_type", value: other)
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

extension SyncFeed {
    /// Who may see something committed after `since`, and the snapshot this was computed at
    /// (the `since` of the next call) with the pruning horizon then. `everyone` when a users
    /// row changed or `since` is nil.
    public struct Audience: Sendable {
        public var snapshot: SyncSnapshot
        public var horizon: UInt64
        public var users: Set<UUID>
        public var everyone: Bool
    }

    public func audience(since: SyncSnapshot?) throws -> Audience {
        try pool.withTransaction(isolation: .repeatableRead) { connection in
            try connection.execute("SET TRANSACTION READ ONLY")
            // The first statement fixes the snapshot every later one reads with.
            // Too many running transactions to keep the list: widen it (more re-checks, no misses).
            let (snapshot, horizon) = try snapshotAndHorizon(on: connection)
            guard let since else { return Audience(snapshot: snapshot, horizon: horizon, users: [], everyone: true) }
            var audience = Audience(snapshot: snapshot, horizon: horizon, users: [], everyone: false)
            for row in try connection.query("SELECT user_id FROM dispatch_sync_audience(\(since.text)::pg_snapshot)") {
                if let user: UUID = try row.decode("user_id") { audience.users.insert(user) } else { audience.everyone = true }
            }
            return audience
        }
    }
}
