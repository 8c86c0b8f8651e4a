import Foundation
import Postgres

/// Byte budgets: a page stops at `SyncFeed.maxPageBytes` as well as at `limit`.
///
/// The budget is applied in the database, so the server never receives more row JSON than
/// fits (plus one row): a window sums each row's JSON size in page order, rows that start
/// beyond the budget are not returned at all, and the one that crosses it comes without its
/// JSON (`fits` false), which tells the page to stop there with `has_more`. The first row of
/// an empty page always fits, however large, so a chain moves on past a row larger than the
/// budget (it goes out alone); the second row then always comes (without JSON), so the page
/// knows the stage goes on.
extension SyncStageQuery {
    /// What a `removed` entry (`{"type":"activity","id":"…"}`) and its comma take, rounded up.
    static let removalBytes = 64

    /// `inner` (columns txid, id, entity, json, gone, parent_kind, parent_id, parent_late),
    /// cut to `bytes` of JSON in the order `order` (columns of `inner`, as `i.…`). Adds `fits`.
    static func bounded(_ inner: PostgresQuery, order: String, bytes: Int, pageEmpty: Bool) -> PostgresQuery {
        let size: PostgresQuery = "(coalesce(octet_length(w.json), \(unsafeSQL: String(removalBytes - 1))) + 1)"
        return """
            SELECT b.txid::text AS txid, b.id, b.entity, b.gone, b.parent_kind, b.parent_id, b.parent_late, b.fits,
                   CASE WHEN b.fits THEN b.json END AS json
            FROM (SELECT w.*, (w.running <= \(bytes) OR (w.n = 1 AND \(pageEmpty))) AS fits
                  FROM (SELECT i.*,
                               sum(coalesce(octet_length(i.json), \(unsafeSQL: String(removalBytes - 1))) + 1)
                                   OVER (ORDER BY \(unsafeSQL: order)) AS running,
                               row_number() OVER (ORDER BY \(unsafeSQL: order)) AS n
                        FROM (\(inner)) i) w
                  WHERE w.running - \(size) < \(bytes) OR w.n <= 2) b
            ORDER BY b.n
            """
    }

    /// The bytes a stage row or removal adds to a response body.
    static func bytes(json: String?) -> Int {
        json.map { $0.utf8.count + 1 } ?? removalBytes
    }
}
