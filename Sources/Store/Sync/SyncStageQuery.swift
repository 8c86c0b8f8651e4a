import Domain
import Foundation
import Postgres

/// The SQL of one feed stage: rows written by transactions the cursor's snapshot did not see
/// but the chain's first snapshot did (or reachable from an entity granted to the viewer by
/// such a transaction), after the paging position, visible to the viewer, in (txid, id) order.
///
/// Every stage returns the same columns: `txid` (text), `id` (the paging key), `entity` (the id
/// a removal names), `json` (the row, null for removals), `gone` (the removal's type, or null
/// for a row to send), and the row's parent: `parent_kind` ('listing', 'task', 'activity' or
/// null), `parent_id` and `parent_late` (the parent's current version was written after the
/// chain began; see SyncFeed.parents).
struct SyncStageQuery {
    /// Entities whose whole subtree must be re-sent (see migrations/0006_sync_feed.sql).
    struct Grants: Sendable {
        var listings: [UUID] = []
        var tasks: [UUID] = []
        var activities: [UUID] = []

        var isEmpty: Bool { listings.isEmpty && tasks.isEmpty && activities.isEmpty }
    }

    let viewer: Viewer
    /// nil: a full snapshot.
    let since: SyncSnapshot?
    /// The snapshot of the chain's first page: every page of the chain is bounded by it, so
    /// rows committed later wait for the next chain (which starts from it).
    let chainStart: SyncSnapshot
    let grants: Grants

    /// Written after `since`: `txid >= xmin` is the index range, the visibility test the
    /// exact filter.
    func unseen(_ column: String) -> PostgresQuery {
        guard let since else { return "TRUE" }
        return "(\(unsafeSQL: column) >= \(String(since.xmin))::xid8 AND NOT pg_visible_in_snapshot(\(unsafeSQL: column), \(since.text)::pg_snapshot))"
    }

    /// Written after `since` and seen by the chain's first snapshot: this chain's range.
    func inChain(_ column: String) -> PostgresQuery {
        "(\(unseen(column)) AND \(Self.visible(column, in: chainStart)))"
    }

    /// Committed when `snapshot` was taken (`txid < xmax` lets the txid index stop early).
    static func visible(_ column: String, in snapshot: SyncSnapshot) -> PostgresQuery {
        "(\(unsafeSQL: column) < \(String(snapshot.xmax))::xid8 AND pg_visible_in_snapshot(\(unsafeSQL: column), \(snapshot.text)::pg_snapshot))"
    }

    /// At most `limit` rows, cut at `bytes` of JSON (see `bounded`); `pageEmpty`: nothing is
    /// in the page yet, so the first row goes out whatever its size.
    func query(_ stage: SyncStage, after position: (txid: UInt64, id: UUID)?, limit: Int,
               bytes: Int, pageEmpty: Bool) -> PostgresQuery {
        Self.bounded(unbounded(stage, after: position, limit: limit), order: "i.txid, i.id", bytes: bytes, pageEmpty: pageEmpty)
    }

    private func unbounded(_ stage: SyncStage, after position: (txid: UInt64, id: UUID)?, limit: Int) -> PostgresQuery {
        let alias = stage == .removed ? "c" : "r"
        let after: PostgresQuery = position.map {
            "(\(unsafeSQL: alias).txid, \(unsafeSQL: alias).id) > (\(String($0.txid))::xid8, \($0.id))"
        } ?? "TRUE"
        if stage == .removed { return removals(after: after, limit: limit) }
        let changed = inChain("r.txid")
        // Granted rows are bounded by the chain's first snapshot too: a version written later
        // is the next chain's, like any other.
        let selection: PostgresQuery = grants.isEmpty
            ? changed : "(\(changed) OR (\(grantClause(stage)) AND \(Self.visible("r.txid", in: chainStart))))"
        return """
            SELECT r.txid, r.id, r.id::text AS entity, \(StoredRowJSON.text("r", table: stage.table)) AS json, \(gone(stage)) AS gone,
                   \(parent(stage))
            FROM \(unsafeSQL: stage.table) r
            WHERE \(selection) AND \(after) AND \(visibility(stage))
            ORDER BY r.txid, r.id
            LIMIT \(limit)
            """
    }

    /// Listings, tasks or activities by id, visible to the viewer, with the stage's columns.
    /// In the order of `ids`, cut at `bytes` of JSON like a stage (the first always fits).
    func rows(_ stage: SyncStage, ids: [UUID], bytes: Int) -> PostgresQuery {
        Self.bounded("""
            SELECT r.txid, r.id, r.id::text AS entity, \(StoredRowJSON.text("r", table: stage.table)) AS json, NULL::text AS gone,
                   \(parent(stage)), array_position(\(ids), r.id) AS ord
            FROM \(unsafeSQL: stage.table) r
            WHERE r.id = ANY(\(ids)) AND \(visibility(stage))
            """, order: "i.ord", bytes: bytes, pageEmpty: true)
    }

    /// Users: every active user is visible to a signed-in user, deactivated ones to admins
    /// only. A realtor's delta names a deactivated user in `removed` instead of sending it; a
    /// realtor's full snapshot leaves deactivated users out.
    private func gone(_ stage: SyncStage) -> PostgresQuery {
        guard stage == .users, !viewer.isAdmin, since != nil else { return "NULL::text" }
        return "CASE WHEN r.deactivated_at IS NOT NULL THEN 'user' END"
    }

    /// The stage's resource's visibility rule (its description), except that a delta sends
    /// every changed user: a deactivated one as a removal (`gone`).
    private func visibility(_ stage: SyncStage) -> PostgresQuery {
        guard let resource = stage.resource, !(stage == .users && since != nil) else { return "TRUE" }
        return Visibility.predicate(resource.description.visibility, alias: "r", viewer)
    }

    /// The `(type, id)` parent columns of a child stage's rows, from its visibility rule.
    private func parentColumns(_ stage: SyncStage) -> (type: String, id: String)? {
        guard case .child(let type, let id)? = stage.resource?.description.visibility else { return nil }
        return ("r.\(type)", "r.\(id)")
    }

    /// Rows below a granted entity: the entity itself and its children. A listing grant does
    /// not reach the items on the listing: those have grants of their own, written by the same
    /// commit (migrations/0008), so an item that moved away since is still covered.
    private func grantClause(_ stage: SyncStage) -> PostgresQuery {
        let listings = grants.listings, tasks = grants.tasks, activities = grants.activities
        func children(type: String, id: String) -> PostgresQuery {
            """
            ((\(unsafeSQL: type) = 'listing' AND \(unsafeSQL: id) = ANY(\(listings)))
             OR (\(unsafeSQL: type) = 'task' AND \(unsafeSQL: id) = ANY(\(tasks)))
             OR (\(unsafeSQL: type) = 'activity' AND \(unsafeSQL: id) = ANY(\(activities))))
            """
        }
        switch stage {
        case .users, .removed: return "FALSE"
        case .listings: return "r.id = ANY(\(listings))"
        case .tasks: return "r.id = ANY(\(tasks))"
        case .activities: return "r.id = ANY(\(activities))"
        case .notes, .subtasks, .claimEvents, .statusChanges:
            guard let columns = parentColumns(stage) else { return "FALSE" }
            return children(type: columns.type, id: columns.id)
        }
    }

    /// Revocation candidates for the viewer written after `since` whose entity the viewer can
    /// no longer see (or that no longer exists).
    private func removals(after: PostgresQuery, limit: Int) -> PostgresQuery {
        """
        SELECT c.txid, c.id, c.entity_id::text AS entity, NULL::text AS json, c.entity_type AS gone,
               \(parent(.removed))
        FROM sync_access_changes c
        WHERE c.user_id = \(viewer.userID) AND NOT c.granted AND \(inChain("c.txid")) AND \(after)
          AND NOT CASE c.entity_type
                WHEN 'listing' THEN EXISTS (SELECT 1 FROM listings r WHERE r.id = c.entity_id AND \(Visibility.listing("r", viewer)))
                WHEN 'task' THEN EXISTS (SELECT 1 FROM tasks r WHERE r.id = c.entity_id AND \(Visibility.workItem("r", viewer)))
                ELSE EXISTS (SELECT 1 FROM activities r WHERE r.id = c.entity_id AND \(Visibility.workItem("r", viewer)))
              END
        ORDER BY c.txid, c.id
        LIMIT \(limit)
        """
    }

    /// The parent columns of a stage's rows (see the type's comment).
    func parent(_ stage: SyncStage) -> PostgresQuery {
        // A probe of each row's parent by primary key. (Reading the parents written after the
        // chain began once per statement, into a hashed set, was tried: under the generic
        // plans the shared delta read keeps, `txid >= $n` is estimated at a third of the table
        // and the set became a sequential scan of tasks; SyncSharedDeltaPlanTests caught it.)
        func late(_ table: String, _ id: String) -> PostgresQuery {
            "(SELECT NOT \(Self.visible("p.txid", in: chainStart)) FROM \(unsafeSQL: table) p WHERE p.id = \(unsafeSQL: id))"
        }
        func child(type: String, id: String) -> PostgresQuery {
            """
            \(unsafeSQL: type) AS parent_kind, \(unsafeSQL: id)::text AS parent_id,
            CASE \(unsafeSQL: type) WHEN 'task' THEN \(late("tasks", id)) WHEN 'activity' THEN \(late("activities", id))
                 ELSE \(late("listings", id)) END AS parent_late
            """
        }
        switch stage {
        case .users, .listings, .removed:
            return "NULL::text AS parent_kind, NULL::text AS parent_id, FALSE AS parent_late"
        case .tasks, .activities:
            return """
                CASE WHEN r.listing_id IS NOT NULL THEN 'listing' END AS parent_kind, r.listing_id::text AS parent_id,
                coalesce(\(late("listings", "r.listing_id")), FALSE) AS parent_late
                """
        case .notes, .subtasks, .claimEvents, .statusChanges:
            guard let columns = parentColumns(stage) else { return "NULL::text AS parent_kind, NULL::text AS parent_id, FALSE AS parent_late" }
            return child(type: columns.type, id: columns.id)
        }
    }
}
