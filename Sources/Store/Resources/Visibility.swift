import Foundation
import Postgres

/// Who is asking. The rules of contract §2 depend on the caller's id and role only.
public struct Viewer: Sendable, Hashable {
    public let userID: UUID
    public let isAdmin: Bool

    public init(userID: UUID, isAdmin: Bool) {
        self.userID = userID
        self.isAdmin = isAdmin
    }
}

/// The kinds of work item: tasks and activities share every rule (contract §2), only the table differs.
public enum WorkItemKind: String, Sendable, CaseIterable {
    case task, activity

    /// The table name; safe to splice (fixed list).
    public var table: String { self == .task ? "tasks" : "activities" }
}

/// contract §2 as SQL predicates, written once and spliced into every read and write, so no query
/// can fetch a row the caller may not see (there is no fetch-then-check for lists to bypass).
///
/// Each predicate takes the alias of the row being tested (a fixed identifier from code) and
/// is an OR of equalities on indexed columns (see migrations/0002_indexes.sql), which the
/// planner turns into a BitmapOr of index scans or hashed sub-plans. Admins get `TRUE`.
/// `bench/explain` prints and checks the plans on a seeded 100k-task database.
///
/// The pure-Swift mirror of these rules lives in `Domain` (tested as tables); the
/// authorization-matrix tests over HTTP check that both agree.
public enum Visibility {
    /// Listing `alias` is visible: owner, assigned staff, or declarer/claimer of a task or
    /// activity on it.
    ///
    /// Correlated EXISTS rather than `id IN (SELECT …)`: for one listing (GET by id, write
    /// checks) the planner probes the listing_id index (0.1 ms) instead of collecting every
    /// task and activity of the caller (6 ms for the busiest seeded realtor); for lists it
    /// still turns the EXISTS into the same hashed set as before.
    public static func listing(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        return listing(alias, subject: .user(viewer.userID))
    }

    /// `listing` for a realtor `me` (a bound id or a column of ids; see VisibilitySubject).
    public static func listing(_ alias: String, subject me: VisibilitySubject) -> PostgresQuery {
        """
            (\(unsafeSQL: alias).owned_by = \(me) OR \(unsafeSQL: alias).assigned_staff = \(me)
             OR EXISTS (SELECT 1 FROM tasks vt WHERE vt.listing_id = \(unsafeSQL: alias).id
                                                 AND (vt.declared_by = \(me) OR vt.claimed_by = \(me)))
             OR EXISTS (SELECT 1 FROM activities va WHERE va.listing_id = \(unsafeSQL: alias).id
                                                      AND (va.declared_by = \(me) OR va.claimed_by = \(me))))
            """
    }

    /// Task or activity `alias` is visible: declarer, claimer, or owner/staff of its listing.
    ///
    /// `listing_id = ANY (ARRAY(SELECT …))`, not `listing_id IN (SELECT …)`: inside an OR, an
    /// IN becomes a hashed SubPlan that can only filter rows, so a caller who sees few items
    /// walked the whole table (221 ms at 100k tasks for a realtor with none). The ARRAY is an
    /// InitPlan computed once, and `= ANY` is an index condition, so the planner can BitmapOr
    /// the declared_by, claimed_by and listing_id indexes (0.1 ms), and still walks the
    /// updated_at index for busy callers (bench/explain; docs/performance.md).
    public static func workItem(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        return workItem(alias, subject: .user(viewer.userID))
    }

    /// `workItem` for a realtor `me` (a bound id or a column of ids; see VisibilitySubject).
    public static func workItem(_ alias: String, subject me: VisibilitySubject) -> PostgresQuery {
        """
            (\(unsafeSQL: alias).declared_by = \(me) OR \(unsafeSQL: alias).claimed_by = \(me)
             OR \(unsafeSQL: alias).listing_id = ANY (ARRAY(SELECT vl.id FROM listings vl
                                                          WHERE vl.owned_by = \(me) OR vl.assigned_staff = \(me))))
            """
    }

    /// `workItem` for a statement that walks many rows (the list pages): the same rule, with
    /// the listing test written twice. `listing_id IN (SELECT …)` is a hashed SubPlan, one
    /// hash probe per row where `= ANY (ARRAY(…))` searched the array linearly (181 listings ×
    /// ~440 rows walked for the busiest seeded realtor's page; docs/performance.md). The
    /// `= ANY` stays, ANDed after it, so the planner can still BitmapOr the declared_by,
    /// claimed_by and listing_id indexes for a caller who sees few rows (an AND arm of an OR
    /// may use any of its indexable conjuncts); on a row that passes the hash it costs one
    /// more array search, only for the rows returned. Both sub-selects are the same set.
    ///
    /// The caller's id is written into the SQL text, not bound: the statement cache prepares
    /// each text once per connection, and after five executions PostgreSQL may settle on a
    /// generic plan made without knowing the parameters. With the id bound, busy callers' pages
    /// made that plan the `updated_at` walk, and a caller who sees nothing then walked every
    /// task (100,000 index entries on the bench team, ~47 ms; ListPlanTests). With the id in
    /// the text each caller has a statement of their own, planned knowing who asks. A UUID's
    /// text is hex digits and dashes only, so splicing it cannot change the statement; the
    /// cost is one cache entry per caller and list shape on each connection.
    public static func workItemScan(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        let me = "'\(viewer.userID.uuidString)'::uuid"
        return """
            (\(unsafeSQL: alias).declared_by = \(unsafeSQL: me) OR \(unsafeSQL: alias).claimed_by = \(unsafeSQL: me)
             OR (\(unsafeSQL: alias).listing_id IN (SELECT sl.id FROM listings sl
                                                   WHERE sl.owned_by = \(unsafeSQL: me) OR sl.assigned_staff = \(unsafeSQL: me))
                 AND \(unsafeSQL: alias).listing_id = ANY (ARRAY(SELECT vl.id FROM listings vl
                                                              WHERE vl.owned_by = \(unsafeSQL: me) OR vl.assigned_staff = \(unsafeSQL: me)))))
            """
    }

    /// `workItem` for a statement that tests one row (GET by id, a claim or release): the
    /// listing test probes the row's listing by primary key, where `= ANY (ARRAY(…))` first
    /// collected every listing the caller owns or staffs (181 rows, ~55 buffers for the
    /// busiest seeded realtor) to test a single task.
    public static func workItemRow(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        return workItemRow(alias, subject: .user(viewer.userID))
    }

    /// `workItemRow` for a realtor `me` (a bound id or a column of ids; see VisibilitySubject).
    public static func workItemRow(_ alias: String, subject me: VisibilitySubject) -> PostgresQuery {
        """
            (\(unsafeSQL: alias).declared_by = \(me) OR \(unsafeSQL: alias).claimed_by = \(me)
             OR EXISTS (SELECT 1 FROM listings rl WHERE rl.id = \(unsafeSQL: alias).listing_id
                                                  AND (rl.owned_by = \(me) OR rl.assigned_staff = \(me))))
            """
    }

    /// A note, subtask or history row whose parent is (`typeColumn`, `idColumn`) is visible
    /// when its parent is. `typeColumn` holds 'task' | 'activity' | 'listing'.
    ///
    /// Correlated EXISTS (a primary-key probe of the parent), not `IN (SELECT every visible
    /// parent)`: inside an OR the IN is a hashed SubPlan that reads every task and activity
    /// (two sequential scans, 27 ms at 100k tasks) even to list one parent's notes (0.4 ms now).
    public static func child(typeColumn: String, idColumn: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        return child(typeColumn: typeColumn, idColumn: idColumn, subject: .user(viewer.userID))
    }

    /// `child` for a realtor `me` (a bound id or a column of ids; see VisibilitySubject).
    public static func child(typeColumn: String, idColumn: String, subject me: VisibilitySubject) -> PostgresQuery {
        """
            ((\(unsafeSQL: typeColumn) = 'task'
              AND EXISTS (SELECT 1 FROM tasks ct WHERE ct.id = \(unsafeSQL: idColumn) AND \(workItem("ct", subject: me))))
             OR (\(unsafeSQL: typeColumn) = 'activity'
              AND EXISTS (SELECT 1 FROM activities ca WHERE ca.id = \(unsafeSQL: idColumn) AND \(workItem("ca", subject: me))))
             OR (\(unsafeSQL: typeColumn) = 'listing'
              AND EXISTS (SELECT 1 FROM listings cl WHERE cl.id = \(unsafeSQL: idColumn) AND \(listing("cl", subject: me)))))
            """
    }

    /// May update listing `alias`'s fields: owner or assigned staff.
    public static func mayUpdateListing(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        // COALESCE: with no staff the comparison is NULL, and a NULL permission decodes as an
        // error (a 500) where the answer is 403.
        return "COALESCE(\(unsafeSQL: alias).owned_by = \(viewer.userID) OR \(unsafeSQL: alias).assigned_staff = \(viewer.userID), FALSE)"
    }

    /// May delete listing `alias` or change its `owned_by` / `assigned_staff`: owner only.
    public static func mayManageListing(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        return "(\(unsafeSQL: alias).owned_by = \(viewer.userID))"
    }

    /// May update work item `alias`'s fields (and its subtasks): declarer, claimer, or
    /// owner/staff of its listing.
    public static func mayUpdateWorkItem(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        workItem(alias, viewer)
    }

    /// May delete work item `alias`: declarer or owner of its listing.
    ///
    /// The listing is probed by primary key (the row's one listing), not `listing_id IN (every
    /// listing the caller owns)`: where the planner did not hash that set (inside the lateral
    /// lock of `WorkItemStore.lock(callerID:)`) it scanned every listing for each test.
    public static func mayDeleteWorkItem(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        guard !viewer.isAdmin else { return "TRUE" }
        let me = viewer.userID
        // COALESCE: a NULL declarer OR no owned listing is NULL, which must read as "no", not fail to decode.
        return """
            COALESCE(\(unsafeSQL: alias).declared_by = \(me)
             OR EXISTS (SELECT 1 FROM listings ml WHERE ml.id = \(unsafeSQL: alias).listing_id AND ml.owned_by = \(me)), FALSE)
            """
    }
}
