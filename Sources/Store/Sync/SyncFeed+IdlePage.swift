import Foundation
import Postgres

extension SyncFeed {
    /// The tables whose rows a delta sends; each has an index on `txid` (migrations/0002).
    private static let rowTables = SyncStage.allCases.filter { $0 != .removed }.map(\.table)

    /// One statement that returns the current snapshot and horizon, and whether anything
    /// could be in a delta page from `$2` (xmin `$1`) for user `$3`: a row of any stage
    /// written by a transaction not visible in it, or an access record (grant or revocation)
    /// of the user written so. A superset of the page — the viewer's visibility is not
    /// checked — so `false` proves the page empty. Each probe is one ordered range scan of a
    /// txid index that stops at the first unseen row (ORDER BY … LIMIT 1 keeps it on the
    /// index whatever the plan cache decides); normally the range holds no row at all.
    private static let idleCheckSQL: String = {
        func probe(_ table: String, _ extra: String = "") -> String {
            "(SELECT r.txid FROM \(table) r WHERE \(extra)r.txid >= $1::xid8"
                + " AND NOT pg_visible_in_snapshot(r.txid, $2::pg_snapshot) ORDER BY r.txid LIMIT 1) IS NOT NULL"
        }
        let probes = rowTables.map { probe($0) } + [probe("sync_access_changes", "r.user_id = $3::uuid AND ")]
        return """
            SELECT pg_current_snapshot()::text AS snapshot, (SELECT horizon::text FROM sync_horizon) AS horizon,
                   (\(probes.joined(separator: "\n                    OR "))) AS pending
            """
    }()

    /// The empty page for a delta (`since` set, not mid-chain) with nothing new, or nil when
    /// something might be new and the stages must be read.
    ///
    /// Why one autocommit statement is as safe as the page's REPEATABLE READ transaction: a
    /// statement reads with one snapshot throughout, and `pg_current_snapshot()` *is* that
    /// snapshot. So the probes and the returned cursor describe the same instant: every
    /// transaction not visible in it — still running during the check, or committing after —
    /// is not visible in the cursor either, and the next sync selects its rows. The cursor is
    /// exactly what the stages would have returned for an empty page that ends a chain: `s`
    /// = this snapshot, `hz` = this horizon.
    func idlePage(viewer: Viewer, cursor: SyncCursor, since: SyncSnapshot, on connection: PostgresConnection) throws -> SyncPage? {
        let query = PostgresQuery(sql: Self.idleCheckSQL, binds: [
            // Untyped: the server takes the types from the casts in the SQL.
            PostgresBind(text: String(since.xmin)), PostgresBind(text: since.text), PostgresBind(viewer.userID),
        ])
        let rows = try connection.queryPrepared(name: "sync_idle_check", query)
        let (current, horizon) = try snapshotAndHorizon(rows)
        try validate(cursor, current: current, horizon: horizon)
        guard let first = rows.first, try !first.decode("pending", as: Bool.self) else { return nil }
        return SyncPage(next: SyncCursor(since: current, horizon: horizon))
    }
}
