import Foundation

/// The claim machinery of an outbox table (mail, webhook deliveries): rows with
/// `id uuid, next_attempt_at, claim uuid, attempts, sent_at, dead_at`.
///
/// A claim is one short statement (`FOR UPDATE SKIP LOCKED`) that moves the rows'
/// `next_attempt_at` a lease ahead and stamps them with a claim id. Concurrent senders skip
/// each other's locked rows, and once the claim commits the rows are no longer due, so no
/// two senders hold one row. The work (SMTP, HTTP) happens outside any transaction; finishing
/// checks the claim id, so a sender whose lease ran out (it hung longer than the lease)
/// cannot overwrite what the sender that took the row over recorded. If a sender dies after
/// the peer accepted and before it recorded that, the row is tried again when the lease ends:
/// delivery is at least once, never silently lost.
public struct LeasedQueue: Sendable {
    /// The table, from code (never input).
    public let table: String
    /// Extra SQL a due row must satisfy, about the row aliased `o` (from code, never input).
    public let eligible: String

    public init(table: String, eligible: String = "TRUE") {
        self.table = table
        self.eligible = eligible
    }

    /// Claims at most `limit` due rows for `lease`, counting the attempt, and returns the
    /// claim id and the rows with the columns `returning` names (about `o`, and the table
    /// `joining` adds: `(table alias, condition)`, for what the row refers to). `order` picks
    /// which due rows go first; `prelude` is a `WITH` clause the statement starts with, for a
    /// gate the claim must pass in the same statement (`eligible` may refer to it).
    public func claim(limit: Int, lease: Duration, returning: String, joining: (table: String, on: String)? = nil,
                      order: String = "o.next_attempt_at", prelude: PostgresQuery = "",
                      on pool: PostgresPool) throws -> (claim: UUID, rows: PostgresRows) {
        let joinedTable = joining.map { ", " + $0.table } ?? ""
        let joinedCondition = joining.map { " AND " + $0.on } ?? ""
        let claim = UUID()
        let rows = try pool.query("""
            \(prelude)
            UPDATE \(unsafeSQL: table) o SET next_attempt_at = now() + make_interval(secs => \(lease.timeInterval)),
                   claim = \(claim), attempts = o.attempts + 1
            FROM (SELECT o.id FROM \(unsafeSQL: table) o
                  WHERE o.sent_at IS NULL AND o.dead_at IS NULL AND o.next_attempt_at <= now() AND (\(unsafeSQL: eligible))
                  ORDER BY \(unsafeSQL: order) LIMIT \(limit) FOR UPDATE OF o SKIP LOCKED) due\(unsafeSQL: joinedTable)
            WHERE o.id = due.id\(unsafeSQL: joinedCondition)
            RETURNING \(unsafeSQL: returning)
            """)
        return (claim, rows)
    }

    /// Records an outcome with `assignments` (`SET` list, may bind values) when the row is
    /// still held by `claim`; false when the claim was lost, in which case nothing changed.
    @discardableResult
    public func finish(id: UUID, claim: UUID, set assignments: PostgresQuery, on connection: PostgresConnection) throws -> Bool {
        try connection.execute("""
            UPDATE \(unsafeSQL: table) SET \(assignments), claim = NULL
            WHERE id = \(id) AND claim = \(claim) AND sent_at IS NULL AND dead_at IS NULL
            """) == 1
    }

    /// Undelivered live rows, and dead ones (the `/metrics` gauges).
    public func counts(on pool: PostgresPool) throws -> (pending: Int, dead: Int) {
        let rows = try pool.query("""
            SELECT (SELECT count(*) FROM \(unsafeSQL: table) WHERE sent_at IS NULL AND dead_at IS NULL)::bigint AS pending,
                   (SELECT count(*) FROM \(unsafeSQL: table) WHERE dead_at IS NOT NULL)::bigint AS dead
            """)
        guard let row = rows.first else { return (0, 0) }
        return (Int(try row.decode("pending", as: Int64.self)), Int(try row.decode("dead", as: Int64.self)))
    }

    /// Deletes finished (sent or dead) rows created more than `age` ago.
    @discardableResult
    public func prune(olderThan age: Duration, on pool: PostgresPool) throws -> Int {
        try pool.execute("""
            DELETE FROM \(unsafeSQL: table) WHERE created_at < now() - make_interval(secs => \(age.timeInterval))
              AND (sent_at IS NOT NULL OR dead_at IS NOT NULL)
            """)
    }

}
