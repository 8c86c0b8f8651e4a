import Foundation
import Postgres

/// One delta page for many realtors at once, when it provably is the same for all of them.
///
/// A change everyone sees (a users row: a rename, a deactivation) wakes every parked request;
/// read one by one, 2,000 requests of 200 users are 200 page reads. But when the only rows
/// written after the cursor S are users rows, the page is the same for every non-admin viewer
/// with cursor S and the same limit:
/// - the users stage shows every user to every signed-in viewer (`visibility` is TRUE for a
///   delta) and names deactivated users in `removed` alike for every realtor (`gone`);
/// - every other stage selects rows written after S (none exist) or below an entity granted
///   to the viewer after S (a grant is an access record; none exist for these viewers);
/// - the removals stage reads the viewer's access records after S (none);
/// - users rows have no parents, so no parent lookups; the late grants are access records too.
/// The check runs in the page's own REPEATABLE READ transaction, so it sees exactly the
/// snapshot the page was read with; anything else written after S (even invisible to all of
/// them) makes it give up, and the caller reads each viewer's page as usual.
extension SyncFeed {
    /// Whether anything but a users row, or an access record of one of `$3`, was written by a
    /// transaction not visible in `$2` (xmin `$1`). Each probe stops at the first such row.
    private static let othersChangedSQL: String = {
        func probe(_ table: String, _ extra: String = "") -> String {
            "(SELECT r.txid FROM \(table) r WHERE \(extra)r.txid >= $1::xid8"
                + " AND NOT pg_visible_in_snapshot(r.txid, $2::pg_snapshot) ORDER BY r.txid LIMIT 1) IS NOT NULL"
        }
        let tables = SyncStage.allCases.filter { $0 != .removed && $0 != .users }.map(\.table)
        let probes = tables.map { probe($0) } + [
            "EXISTS (SELECT 1 FROM sync_access_changes r WHERE r.user_id = ANY($3::uuid[]) AND r.txid >= $1::xid8"
                + " AND NOT pg_visible_in_snapshot(r.txid, $2::pg_snapshot))",
        ]
        return "SELECT (" + probes.joined(separator: "\n OR ") + ") AS others"
    }()

    /// The page from `cursor` that every realtor in `viewers` would get, read as `viewers[0]`;
    /// nil when it may differ between them (see above) or `cursor` is not a plain delta.
    public func sharedRealtorPage(viewers: [Viewer], cursor: SyncCursor, limit: Int) throws -> SyncPage? {
        guard let representative = viewers.first, viewers.allSatisfy({ !$0.isAdmin }),
              let since = cursor.since, cursor.position == nil else { return nil }
        let limit = max(1, min(limit, Self.maxLimit))
        return try pool.withConnection { connection in
            try connection.withTransaction(isolation: .repeatableRead) { connection in
                let page = try stagesPage(viewer: representative, cursor: cursor, limit: limit, on: connection)
                let users = "{" + viewers.map { $0.userID.uuidString.lowercased() }.joined(separator: ",") + "}"
                let rows = try connection.queryPrepared(name: "sync_others_changed", PostgresQuery(sql: Self.othersChangedSQL, binds: [
                    PostgresBind(text: String(since.xmin)), PostgresBind(text: since.text), PostgresBind(text: users),
                ]))
                guard let first = rows.first, try !first.decode("others", as: Bool.self) else { return nil }
                return page
            }
        }
    }
}
