import Foundation
import Postgres

/// The SQL of one feed stage: rows written by transactions the cursor's snapshot did not see
/// (or reachable from an entity granted to the viewer by such a transaction), after the paging
/// position, visible to the viewer, in (txid, id) order.
///
/// Every stage returns the same columns: `txid` (text), `id` (the paging key), `entity` (the id
/// a removal names), `json` (the row, null for removals) and `gone` (the removal's type, or
/// null for a row to send).
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
    let grants: Grants

    /// Written after `since`: `txid >= xmin` is the index range, the visibility test the
    /// exact filter.
    func unseen(_ column: String) -> PostgresQuery {
        guard let since else { return "TRUE" }
        return "(\(unsafeSQL: column) >= \(String(since.xmin))::xid8 AND NOT pg_visible_in_snapshot(\(unsafeSQL: column), \(since.text)::pg_snapshot))"
    }

    func query(_ stage: SyncStage, after position: (txid: UInt64, id: UUID)?, limit: Int) -> PostgresQuery {
        let alias = stage == .removed ? "c" : "r"
        let after: PostgresQuery = position.map {
            "(\(unsafeSQL: alias).txid, \(unsafeSQL: alias).id) > (\(String($0.txid))::xid8, \($0.id))"
        } ?? "TRUE"
        if stage == .removed { return removals(after: after, limit: limit) }
        let changed = unseen("r.txid")
        let selection: PostgresQuery = grants.isEmpty ? changed : "(\(changed) OR \(grantClause(stage)))"
        return """
            SELECT r.txid::text AS txid, r.id, r.id::text AS entity, dispatch_json(r)::text AS json, \(gone(stage)) AS gone
            FROM \(unsafeSQL: stage.table) r
            WHERE \(selection) AND \(after) AND \(visibility(stage))
            ORDER BY r.txid, r.id
            LIMIT \(limit)
            """
    }

    /// Users: every active user is visible to a signed-in user, deactivated ones to admins
    /// only. A realtor's delta names a deactivated user in `removed` instead of sending it; a
    /// realtor's full snapshot leaves deactivated users out.
    private func gone(_ stage: SyncStage) -> PostgresQuery {
        guard stage == .users, !viewer.isAdmin, since != nil else { return "NULL::text" }
        return "CASE WHEN r.deactivated_at IS NOT NULL THEN 'user' END"
    }

    private func visibility(_ stage: SyncStage) -> PostgresQuery {
        switch stage {
        case .users:
            return viewer.isAdmin || since != nil ? "TRUE" : "r.deactivated_at IS NULL"
        case .listings:
            return Visibility.listing("r", viewer)
        case .tasks, .activities:
            return Visibility.workItem("r", viewer)
        case .notes, .subtasks:
            return Visibility.child(typeColumn: "r.parent_type", idColumn: "r.parent_id", viewer)
        case .claimEvents, .statusChanges:
            return Visibility.child(typeColumn: "r.entity_type", idColumn: "r.entity_id", viewer)
        case .removed:
            return "TRUE"
        }
    }

    /// Rows below a granted entity: the listing itself, the tasks/activities on it, the
    /// children of those and of granted tasks/activities.
    private func grantClause(_ stage: SyncStage) -> PostgresQuery {
        let listings = grants.listings, tasks = grants.tasks, activities = grants.activities
        func children(type: String, id: String) -> PostgresQuery {
            """
            ((\(unsafeSQL: type) = 'listing' AND \(unsafeSQL: id) = ANY(\(listings)))
             OR (\(unsafeSQL: type) = 'task' AND \(unsafeSQL: id) IN
                 (SELECT g.id FROM tasks g WHERE g.id = ANY(\(tasks)) OR g.listing_id = ANY(\(listings))))
             OR (\(unsafeSQL: type) = 'activity' AND \(unsafeSQL: id) IN
                 (SELECT g.id FROM activities g WHERE g.id = ANY(\(activities)) OR g.listing_id = ANY(\(listings)))))
            """
        }
        switch stage {
        case .users, .removed: return "FALSE"
        case .listings: return "r.id = ANY(\(listings))"
        case .tasks: return "(r.id = ANY(\(tasks)) OR r.listing_id = ANY(\(listings)))"
        case .activities: return "(r.id = ANY(\(activities)) OR r.listing_id = ANY(\(listings)))"
        case .notes, .subtasks: return children(type: "r.parent_type", id: "r.parent_id")
        case .claimEvents, .statusChanges: return children(type: "r.entity_type", id: "r.entity_id")
        }
    }

    /// Revocation candidates for the viewer written after `since` whose entity the viewer can
    /// no longer see (or that no longer exists).
    private func removals(after: PostgresQuery, limit: Int) -> PostgresQuery {
        """
        SELECT c.txid::text AS txid, c.id, c.entity_id::text AS entity, NULL::text AS json, c.entity_type AS gone
        FROM sync_access_changes c
        WHERE c.user_id = \(viewer.userID) AND NOT c.granted AND \(unseen("c.txid")) AND \(after)
          AND NOT CASE c.entity_type
                WHEN 'listing' THEN EXISTS (SELECT 1 FROM listings r WHERE r.id = c.entity_id AND \(Visibility.listing("r", viewer)))
                WHEN 'task' THEN EXISTS (SELECT 1 FROM tasks r WHERE r.id = c.entity_id AND \(Visibility.workItem("r", viewer)))
                ELSE EXISTS (SELECT 1 FROM activities r WHERE r.id = c.entity_id AND \(Visibility.workItem("r", viewer)))
              END
        ORDER BY c.txid, c.id
        LIMIT \(limit)
        """
    }
}
