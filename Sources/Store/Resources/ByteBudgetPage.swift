import Postgres

/// A list page bounded by bytes as well as rows. Rows can be large (long texts,
/// Slack message arrays), so `limit` rows could be many megabytes; PostgreSQL therefore cuts
/// the page at `maxBytes` of row JSON itself, and only the rows that fit ever reach this
/// process — server memory per request stays about one budget whatever the rows hold.
///
/// The inner query selects `json` (text), `id`, `sort_key` (int8, may be NULL) and
/// `version`, ordered by the list's order and limited to `limit + 1` rows. The wrapper adds a
/// running byte total in that order (`sort_key`, `id`; NULL keys last) and returns the rows
/// that fit — the first row always, even when it alone is larger than the budget, so paging
/// never gets stuck — plus at most one marker row (NULL `json`) saying another page exists.
struct ByteBudgetPage {
    var limit: Int
    var maxBytes: Int
    var descending: Bool

    func query(_ inner: PostgresQuery) -> PostgresQuery {
        let direction = descending ? "DESC" : "ASC"
        // octet_length + 1: each row's bytes and the comma before the next. Returned: the
        // rows that start within the budget (the kept ones and the one that would cross it),
        // and always the second row, the marker when the first alone is over the budget.
        return """
            SELECT CASE WHEN q.n <= \(limit) AND (q.n = 1 OR q.running <= \(maxBytes)) THEN q.json END AS json,
                   q.id, q.sort_key, q.version
            FROM (SELECT p.*, row_number() OVER w AS n, sum(octet_length(p.json) + 1) OVER w AS running
                  FROM (\(inner)) p
                  WINDOW w AS (ORDER BY p.sort_key \(unsafeSQL: direction) NULLS LAST, p.id \(unsafeSQL: direction)
                               ROWS UNBOUNDED PRECEDING)) q
            WHERE q.n <= 2 OR q.running - octet_length(q.json) - 1 <= \(maxBytes)
            ORDER BY q.n
            """
    }

    /// The kept rows (with their keyset positions) and whether more follow.
    struct Result {
        var rows: [(json: String, version: Int, position: KeysetPosition)]
        var hasMore: Bool
        /// Where the next page starts: the last kept row, when more follow.
        var next: KeysetPosition? { hasMore ? rows.last?.position : nil }
    }

    static func decode(_ rows: PostgresRows) throws -> Result {
        var kept: [(json: String, version: Int, position: KeysetPosition)] = []
        kept.reserveCapacity(rows.count)
        var hasMore = false
        for row in rows {
            guard let json = try row.decode("json", as: String?.self) else {
                hasMore = true
                continue
            }
            kept.append((json, try row.decode("version"),
                         KeysetPosition(key: try row.decode("sort_key"), id: try row.decode("id"))))
        }
        return Result(rows: kept, hasMore: hasMore)
    }
}
