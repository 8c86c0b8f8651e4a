import Domain
import Foundation
import Postgres

/// The SQL of the shared delta read (SyncFeed+SharedDeltas): the rows of every stage in one
/// chain's range, each with the realtors among a given set who may see it.
///
/// A row's viewers are found in two steps. First its *candidates*: every user id the row's
/// visibility rule compares with the caller — a work item's declarer and claimer and its
/// listing's owner and staff; a listing's owner and staff and the declarers and claimers of
/// the tasks and activities on it; a child's parent's candidates. Each rule in `Visibility`
/// is an OR of such equalities, so whoever may see the row is among them (a superset: one
/// that only *was* a claimer is still filtered out below). Then the rule itself, from
/// `Visibility` with the candidate's id as the subject, decides each (row, candidate) pair
/// that is one of the given realtors. So the rules are not written again here, and the work
/// is per row and per candidate, never per row and per waiting viewer.
struct SyncSharedDeltaQuery {
    /// The chain's stage SQL; only its viewer-independent parts are used (`inChain`,
    /// `parent`), so its viewer may be anyone.
    let stages: SyncStageQuery

    init(since: SyncSnapshot, chainStart: SyncSnapshot, anyViewer: Viewer) {
        stages = SyncStageQuery(viewer: anyViewer, since: since, chainStart: chainStart, grants: .init())
    }

    /// Every row of every stage but `removed` in the chain's range, ordered like the stages
    /// (stage, txid, id), at most `cap` rows. Columns: `stage` (SyncStage's raw value),
    /// `txid` (text), `id`, `entity`, `json`, `deactivated` (users), the parent columns of
    /// SyncStageQuery, and `viewers`: the ids of `realtors` who may see the row, comma
    /// separated, or null for a users row (every signed-in viewer sees users in a delta).
    func rows(realtors: [UUID], cap: Int) -> PostgresQuery {
        let arms = PostgresQuery.joined(SyncStage.allCases.filter { $0 != .removed }.map { arm($0, realtors: realtors) },
                                        separator: "\nUNION ALL\n")
        return """
            SELECT s.stage, s.txid::text AS txid, s.id, s.entity, s.json, s.deactivated,
                   s.parent_kind, s.parent_id, s.parent_late, s.viewers
            FROM (\(arms)) s
            ORDER BY s.stage, s.txid, s.id
            LIMIT \(unsafeSQL: String(cap))
            """
    }

    /// Realtors among `realtors` with an access record the chain may read: a grant or
    /// revocation written after `since` (their pages re-send granted subtrees or name
    /// removals) or one written after the chain's start (a late grant makes parents suspect,
    /// SyncFeed+Parents). A superset of both; these viewers are read one by one.
    func realtorsWithAccessChanges(_ realtors: [UUID]) -> PostgresQuery {
        let since = stages.since!, start = stages.chainStart
        return """
            SELECT DISTINCT c.user_id FROM sync_access_changes c
            WHERE c.user_id = ANY(\(realtors)) AND c.txid >= \(String(min(since.xmin, start.xmin)))::xid8
              AND (NOT pg_visible_in_snapshot(c.txid, \(since.text)::pg_snapshot)
                   OR NOT pg_visible_in_snapshot(c.txid, \(start.text)::pg_snapshot))
            """
    }

    private func arm(_ stage: SyncStage, realtors: [UUID]) -> PostgresQuery {
        guard let resource = stage.resource else { return "" }
        let head: PostgresQuery = """
            SELECT \(unsafeSQL: String(stage.rawValue)) AS stage, r.txid, r.id, r.id::text AS entity,
                   \(StoredRowJSON.text("r", table: stage.table)) AS json,
            """
        guard case let entity? = Self.entity(of: stage, rule: resource.description.visibility) else {
            // Users: no pairing, seen by everyone; a deactivated one is a removal for realtors.
            return """
                \(head) r.deactivated_at IS NOT NULL AS deactivated, \(stages.parent(stage)), NULL::text AS viewers
                FROM users r WHERE \(stages.inChain("r.txid"))
                """
        }
        let rule = Visibility.predicateForOneRow(resource.description.visibility, alias: "r", subject: .column("k.u"))
        return """
            \(head) FALSE AS deactivated, \(stages.parent(stage)),
                   array_to_string(ARRAY(SELECT k.u FROM (\(Self.candidates(kind: entity.kind, id: entity.id, kinds: entity.kinds))) k (u)
                                         WHERE k.u = ANY(\(realtors)) AND \(rule)), ',') AS viewers
            FROM \(unsafeSQL: stage.table) r WHERE \(stages.inChain("r.txid"))
            """
    }

    /// The entity whose candidates decide a stage's row: the row itself, or a child's parent
    /// (SQL expressions for its kind and id), with the kinds it can be; nil for users.
    private static func entity(of stage: SyncStage, rule: VisibilityRule) -> (kind: String, id: String, kinds: Set<String>)? {
        switch rule {
        case .activeUsers: nil
        case .listing: ("'listing'", "r.id", ["listing"])
        case .workItem: stage == .tasks ? ("'task'", "r.id", ["task"]) : ("'activity'", "r.id", ["activity"])
        case .child(let typeColumn, let idColumn):
            // Subtasks and claim events hang under work items only (their CHECK constraints).
            ("r.\(typeColumn)", "r.\(idColumn)", stage == .subtasks || stage == .claimEvents ? ["task", "activity"] : ["task", "activity", "listing"])
        }
    }

    /// Every user id the visibility rule of entity (`kind`, `id`) compares with the caller
    /// (see the type's comment), for the kinds it can be: only those arms are written, so the
    /// planner has less to plan, and an arm of another kind is cut by a one-time filter.
    private static func candidates(kind: String, id: String, kinds: Set<String>) -> PostgresQuery {
        var arms: [String] = []
        for item in [("task", "tasks", "kt"), ("activity", "activities", "ka")] where kinds.contains(item.0) {
            arms.append("""
                SELECT unnest(ARRAY[\(item.2).declared_by, \(item.2).claimed_by, kl.owned_by, kl.assigned_staff])
                  FROM \(item.1) \(item.2) LEFT JOIN listings kl ON kl.id = \(item.2).listing_id
                  WHERE \(kind) = '\(item.0)' AND \(item.2).id = \(id)
                """)
        }
        if kinds.contains("listing") {
            arms.append("SELECT unnest(ARRAY[kl.owned_by, kl.assigned_staff]) FROM listings kl WHERE \(kind) = 'listing' AND kl.id = \(id)")
            for item in [("tasks", "kt"), ("activities", "ka")] {
                arms.append("""
                    SELECT unnest(ARRAY[\(item.1).declared_by, \(item.1).claimed_by])
                      FROM \(item.0) \(item.1) WHERE \(kind) = 'listing' AND \(item.1).listing_id = \(id)
                    """)
            }
        }
        return PostgresQuery(sql: arms.joined(separator: "\nUNION ALL "))
    }
}
