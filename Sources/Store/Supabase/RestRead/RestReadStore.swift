import Domain
import Foundation
import Postgres

/// Runs `/rest/v1` reads. Every query carries the caller's visibility rule, so an invisible
/// row is simply absent (its id never leaves the database), exactly as on `/v1`.
public struct RestReadStore: Sendable {
    public let pool: PostgresPool
    /// Rows fetched from the cursor per round trip when streaming: a bounded slice of the
    /// result is in memory at any time, whatever its size.
    public static let streamBatchRows = 500

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// A whole (bounded) result in memory: the rows' JSON texts and, when asked, the total.
    /// With a count both statements read one snapshot (REPEATABLE READ, read only).
    public func page(_ query: RestReadQuery, _ viewer: Viewer, count: RestCountMode?) throws -> (rows: [String], total: Int?) {
        try pool.withConnection { connection in
            guard let count else { return (try Self.jsonRows(connection.query(RestReadSQL.rows(query, viewer))), nil) }
            return try connection.withTransaction(isolation: .repeatableRead) { connection in
                try connection.execute("SET TRANSACTION READ ONLY")
                let total = try Self.total(query, viewer, count, on: connection)
                return (try Self.jsonRows(connection.query(RestReadSQL.rows(query, viewer))), total)
            }
        }
    }

    /// The total alone (HEAD).
    public func total(_ query: RestReadQuery, _ viewer: Viewer, count: RestCountMode) throws -> Int {
        try pool.withConnection { try Self.total(query, viewer, count, on: $0) }
    }

    /// Streams every row the query matches through a cursor in one REPEATABLE READ, read-only
    /// transaction: `start` gets the total (when asked) before the first row, then `batch`
    /// gets the rows `streamBatchRows` at a time. Throwing from either (a client that went
    /// away) rolls the transaction back and returns the connection to the pool.
    public func stream(_ query: RestReadQuery, _ viewer: Viewer, count: RestCountMode?,
                       start: (Int?) throws -> Void, batch: ([String]) throws -> Void) throws {
        try pool.withConnection { connection in
            try connection.withTransaction(isolation: .repeatableRead) { connection in
                try connection.execute("SET TRANSACTION READ ONLY")
                let total = try count.map { try Self.total(query, viewer, $0, on: connection) }
                try connection.execute("DECLARE rest_rows NO SCROLL CURSOR FOR \(RestReadSQL.rows(query, viewer))")
                var first = try Self.jsonRows(connection.query("FETCH \(unsafeSQL: String(Self.streamBatchRows)) FROM rest_rows"))
                // Headers go out only once the query has run: an error in it is still a status.
                try start(total)
                while !first.isEmpty {
                    try batch(first)
                    guard first.count == Self.streamBatchRows else { break }
                    first = try Self.jsonRows(connection.query("FETCH \(unsafeSQL: String(Self.streamBatchRows)) FROM rest_rows"))
                }
            }
        }
    }

    static func total(_ query: RestReadQuery, _ viewer: Viewer, _ mode: RestCountMode,
                      on connection: PostgresConnection) throws -> Int {
        switch mode {
        case .exact:
            return try exactCount(query, viewer, on: connection)
        case .planned:
            return try plannedCount(query, viewer, on: connection)
        case .estimated:
            let planned = try plannedCount(query, viewer, on: connection)
            return planned > RestCountMode.estimatedExactLimit ? planned : try exactCount(query, viewer, on: connection)
        }
    }

    private static func exactCount(_ query: RestReadQuery, _ viewer: Viewer, on connection: PostgresConnection) throws -> Int {
        guard let row = try connection.query(RestReadSQL.count(query, viewer)).first else { return 0 }
        return try row.decode("n", as: Int.self)
    }

    /// `Plan Rows` of the top plan node.
    private static func plannedCount(_ query: RestReadQuery, _ viewer: Viewer, on connection: PostgresConnection) throws -> Int {
        guard let text = try connection.query(RestReadSQL.plannedCount(query, viewer)).first?.text("QUERY PLAN"),
              let plans = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]],
              let plan = plans.first?["Plan"] as? [String: Any],
              let rows = plan["Plan Rows"] as? NSNumber
        else { return 0 }
        return rows.intValue
    }

    private static func jsonRows(_ rows: PostgresRows) throws -> [String] {
        try rows.map { try $0.decode(0, as: String.self) }
    }
}
