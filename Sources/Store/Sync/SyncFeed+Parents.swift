import Foundation
import Postgres

/// Parents travel with their children when the device may not have them yet.
///
/// Pages are bounded by the chain's first snapshot F (SyncStageQuery.inChain), so a row
/// committed after the chain began waits for the next chain, and so do its children. That
/// alone does not keep "parents first": a task written before F and *rewritten* after F is
/// skipped by the tasks stage (its current version is after F), while its note written
/// before F is not; and a parent that became visible to the viewer after F (a listing
/// reassigned) was never in this chain's parent stages. So each row's parent is *suspect*
/// when
/// - its current version was written after F (`parent_late`), or
/// - the viewer was granted it after F (an access record, migrations 0006 and 0008: every way
///   a listing, task or activity becomes visible to a user writes a record naming it).
///
/// A suspect parent is sent in the same page, in its own (earlier) array. Any other parent the
/// viewer sees now has a version written before F that it saw at F, and nothing changed that
/// since (a regain would have left a grant after F), so an earlier page of this chain sent it
/// (its stage key did not move), or an earlier chain did. Parents of parents (a moved task's
/// new listing) are checked the same way; listings have no parent.
extension SyncFeed {
    /// A listing, task or activity, by kind ('listing' | 'task' | 'activity') and lowercase id.
    struct ParentRef: Hashable {
        var kind: String
        var id: String

        var stage: SyncStage? {
            switch kind {
            case "listing": .listings
            case "task": .tasks
            case "activity": .activities
            default: nil
            }
        }

        /// A reference read from the database: an unknown kind is an error, not a parent
        /// silently never sent.
        static func stored(kind: String, id: String, column: String) throws -> ParentRef {
            let ref = ParentRef(kind: kind, id: id)
            guard ref.stage != nil else { throw UnknownStoredValue(column: column, value: kind) }
            return ref
        }
    }

    /// A parent fetched to travel with a child.
    struct Ancestor {
        var json: String
        var parent: ParentRef?
        var parentLate: Bool
    }

    /// Listings, tasks and activities granted to the viewer after the chain began (none for
    /// admins, who see everything at all times).
    func lateGrants(viewer: Viewer, chainStart: SyncSnapshot, on connection: PostgresConnection) throws -> Set<ParentRef> {
        guard !viewer.isAdmin else { return [] }
        let rows = try connection.query("""
            SELECT DISTINCT entity_type, entity_id::text AS entity_id FROM sync_access_changes c
            WHERE user_id = \(viewer.userID) AND granted AND c.txid >= \(String(chainStart.xmin))::xid8
              AND NOT pg_visible_in_snapshot(c.txid, \(chainStart.text)::pg_snapshot)
            """)
        return Set(try rows.map {
            try ParentRef.stored(kind: try $0.decode("entity_type"), id: try $0.decode("entity_id"),
                                 column: "sync_access_changes.entity_type")
        })
    }

    /// The suspect parents of `rows`, and the suspect parents of those, that the page does
    /// not hold yet, fetched (visible to the viewer) by reference, in the order the rows need
    /// them and cut at `bytes` of JSON like a stage: the first one needed always comes, a
    /// parent left out stops the page before the row that needs it.
    func ancestors(of rows: [SyncStageRow], lateGrants: Set<ParentRef>, sent: Set<ParentRef>, bytes: Int,
                   query: SyncStageQuery, on connection: PostgresConnection) throws -> [ParentRef: Ancestor] {
        var found: [ParentRef: Ancestor] = [:]
        func suspect(_ parent: ParentRef?, late: Bool) -> ParentRef? {
            parent.flatMap { late || lateGrants.contains($0) ? $0 : nil }
        }
        var wanted = rows.compactMap { suspect($0.parent, late: $0.parentLate) }
        for _ in 0..<2 {
            var seen = Set<ParentRef>()
            wanted = wanted.filter { !sent.contains($0) && found[$0] == nil && seen.insert($0).inserted }
            guard !wanted.isEmpty else { break }
            var next: [ParentRef] = []
            for stage in [SyncStage.listings, .tasks, .activities] {
                let ids = wanted.filter { $0.stage == stage }.compactMap { UUID(uuidString: $0.id) }
                guard !ids.isEmpty else { continue }
                for row in try connection.query(query.rows(stage, ids: ids, bytes: bytes)) {
                    guard let json: String = try row.decode("json") else { continue }
                    let ref = ParentRef(kind: stage == .listings ? "listing" : stage == .tasks ? "task" : "activity",
                                        id: try row.decode("entity"))
                    let ancestor = Ancestor(json: json, parent: try Self.parentRef(row), parentLate: try row.decode("parent_late"))
                    found[ref] = ancestor
                    if let grandparent = suspect(ancestor.parent, late: ancestor.parentLate) { next.append(grandparent) }
                }
            }
            wanted = next
        }
        return found
    }

    /// The suspect parents `row` needs sent with it (outermost first), given what the page
    /// holds already; nil when one of them was not fetched (beyond the byte budget).
    func parentsToSend(for row: SyncStageRow, ancestors: [ParentRef: Ancestor], lateGrants: Set<ParentRef>,
                       sent: Set<ParentRef>) -> [ParentRef]? {
        var chain: [ParentRef] = []
        var next = row.parent.map { ($0, row.parentLate) }
        while let (ref, late) = next, late || lateGrants.contains(ref), !sent.contains(ref) {
            guard let ancestor = ancestors[ref] else { return nil }
            chain.insert(ref, at: 0)
            next = ancestor.parent.map { ($0, ancestor.parentLate) }
        }
        return chain
    }

    static func parentRef(_ row: PostgresRow) throws -> ParentRef? {
        guard let kind: String = try row.decode("parent_kind"), let id: String = try row.decode("parent_id") else { return nil }
        return try ParentRef.stored(kind: kind, id: id, column: "parent_type")
    }
}
