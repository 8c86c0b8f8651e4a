import Foundation
import Postgres

/// One row of a stage query (SyncStageQuery): its paging key, what to send, and its parent.
struct SyncStageRow {
    var txid: UInt64
    var id: UUID
    /// The id a removal names.
    var entity: String
    /// Nil for removals, and for the row that crosses the byte budget (`fits` false).
    var json: String?
    /// Within the page's byte budget (SyncStageQuery.bounded): false stops the page here.
    var fits: Bool
    /// The removal's type, or nil for a row to send.
    var gone: String?
    var parent: SyncFeed.ParentRef?
    /// The parent's current version was written after the chain began.
    var parentLate: Bool

    init(_ row: PostgresRow) throws {
        guard let txid = UInt64(try row.decode("txid", as: String.self)) else {
            throw PostgresError(kind: .protocolViolation, message: "unreadable txid")
        }
        self.txid = txid
        id = try row.decode("id")
        entity = try row.decode("entity")
        json = try row.decode("json")
        fits = try row.decode("fits")
        gone = try row.decode("gone")
        parent = try SyncFeed.parentRef(row)
        parentLate = try row.decode("parent_late")
    }
}
