/// Notes, subtasks and the history tables. These read the rows generated before them (joins
/// on recomputed ids), so authors, times and history agree with their parents.
extension DemoSQL {
    static let noteContents = ["Left a voicemail, will try again tomorrow.", "Client prefers text messages.",
                               "Seller agreed to the new showing schedule.", "Waiting on the lender's answer.",
                               "Photos look great, sent to the client for approval.", "Buyer asked about strata fees.",
                               "Inspection found minor roof repairs.", "Keys are in the lockbox.",
                               "Offer deadline moved to Friday 5 pm.", "Need the signed disclosure before listing.",
                               "Tenant will be home for the showing.", "Appraisal came in at asking.",
                               "Staging scheduled for Monday morning.", "Parking stall number is 42.",
                               "Remind the client about the deposit.", "Neighbours asked about the open house."]
    static let checklist = ["Confirm with client", "Collect documents", "Book the appointment", "Send summary email",
                            "Update the file", "Get signatures", "Call back", "Check the calendar", "Prepare handout"]

    /// 60 % on tasks, 25 % on activities, 15 % on listings, written by someone who sees the
    /// parent (its declarer or claimer, the listing's owner or staff, sometimes an admin).
    static func notes(_ d: DemoDataset) -> String {
        """
        WITH g AS (
            SELECT i, pg_temp.did(5, i) AS id, pg_temp.du(400, i) AS parent_draw
            FROM generate_series(1, \(d.notes)) AS i
        ), p AS MATERIALIZED (
            SELECT g.*,
                   CASE WHEN parent_draw < 0.60 THEN 'task' WHEN parent_draw < 0.85 THEN 'activity' ELSE 'listing' END AS parent_type,
                   CASE WHEN parent_draw < 0.60 THEN pg_temp.did(3, 1 + pg_temp.dpick(401, i, \(d.tasks)))
                        WHEN parent_draw < 0.85 THEN pg_temp.did(4, 1 + pg_temp.dpick(401, i, \(d.activities)))
                        ELSE pg_temp.did(2, 1 + pg_temp.dpick(401, i, \(d.listings))) END AS parent_id
            FROM g
        ), q AS (
            SELECT p.*,
                   coalesce(t.created_at, a.created_at, l.created_at) AS parent_created_at,
                   CASE WHEN pg_temp.du(402, i) < 0.05 THEN pg_temp.dadmin(403, i)
                        WHEN pg_temp.du(402, i) < 0.30
                        THEN coalesce(t.claimed_by, a.claimed_by, l.assigned_staff, t.declared_by, a.declared_by, l.owned_by)
                        ELSE coalesce(t.declared_by, a.declared_by, l.owned_by) END AS created_by
            FROM p
            LEFT JOIN tasks t ON p.parent_type = 'task' AND t.id = p.parent_id
            LEFT JOIN activities a ON p.parent_type = 'activity' AND a.id = p.parent_id
            LEFT JOIN listings l ON p.parent_type = 'listing' AND l.id = p.parent_id
        ), r AS (
            SELECT q.*, pg_temp.dbetween(404, i, parent_created_at, 1) AS created_at FROM q
        ), s AS (
            SELECT r.*, CASE WHEN pg_temp.du(405, i) < 0.10 THEN pg_temp.dbetween(406, i, created_at, 1) END AS edited_at
            FROM r
        ), e AS (
            SELECT s.*, CASE WHEN pg_temp.du(407, i) < 0.03 THEN pg_temp.dbetween(408, i, coalesce(edited_at, created_at), 1) END AS deleted_at
            FROM s
        )
        INSERT INTO notes (id, content, created_by, parent_type, parent_id, edited_at, edited_by, deleted_at,
                           created_at, updated_at, version)
        SELECT id, \(pick(noteContents, salt: 409, n: "i")), created_by, parent_type, parent_id,
               edited_at, CASE WHEN edited_at IS NOT NULL THEN created_by END, deleted_at, created_at,
               greatest(created_at, edited_at, deleted_at),
               1 + (edited_at IS NOT NULL)::int + (deleted_at IS NOT NULL)::int
        FROM e
        """
    }

    /// Checklists of three on a random task (80 %) or activity; done when the parent is.
    static func subtasks(_ d: DemoDataset) -> String {
        """
        WITH g AS (
            SELECT i, pg_temp.did(6, i) AS id, (i - 1) / 3 AS grp, (i - 1) % 3 AS position
            FROM generate_series(1, \(d.subtasks)) AS i
        ), p AS MATERIALIZED (
            SELECT g.*,
                   CASE WHEN pg_temp.du(500, grp) < 0.8 THEN 'task' ELSE 'activity' END AS parent_type,
                   CASE WHEN pg_temp.du(500, grp) < 0.8 THEN pg_temp.did(3, 1 + pg_temp.dpick(501, grp, \(d.tasks)))
                        ELSE pg_temp.did(4, 1 + pg_temp.dpick(501, grp, \(d.activities))) END AS parent_id
            FROM g
        ), q AS (
            SELECT p.*,
                   coalesce(t.created_at, a.created_at) + pg_temp.du(502, i) * interval '1 hour' AS created_at,
                   coalesce(t.status, a.status) = 'completed' OR pg_temp.du(503, i) < 0.35 AS completed,
                   CASE WHEN pg_temp.du(504, i) < 0.02 THEN pg_temp.dbetween(505, i, coalesce(t.created_at, a.created_at), 1) END AS deleted_at
            FROM p
            LEFT JOIN tasks t ON p.parent_type = 'task' AND t.id = p.parent_id
            LEFT JOIN activities a ON p.parent_type = 'activity' AND a.id = p.parent_id
        ), r AS (
            SELECT q.*, CASE WHEN completed THEN pg_temp.dbetween(506, i, created_at, 1) END AS completed_at FROM q
        )
        INSERT INTO subtasks (id, title, completed, parent_type, parent_id, position, deleted_at, created_at, updated_at, version)
        SELECT id, \(pick(checklist, salt: 507, n: "i")), completed, parent_type, parent_id, position, deleted_at, created_at,
               greatest(created_at, completed_at, deleted_at), 1 + completed::int + (deleted_at IS NOT NULL)::int
        FROM r
        """
    }

    /// One `claimed` event per claimed item; a `claimed` + `released` pair for the items that
    /// were claimed and given back (`releasedClaim`). The seeded tables held no other rows
    /// (seed-demo refuses or truncates), so reading them whole reads exactly what was generated.
    static func claimEvents(_ d: DemoDataset) -> String {
        let parts = [("task", "tasks", taskKind(d)), ("activity", "activities", activityKind(d))].map { entity, table, kind in
            let h = "hashtextextended(w.id::text, 0)"
            let releaser = "pg_temp.drealtor(\(kind.salt + 23), \(h))"
            return """
                SELECT '\(entity)' AS entity_type, w.id AS entity_id, w.claimed_by AS user_id, 'claimed' AS action,
                       w.claimed_at AS at
                FROM \(table) w WHERE w.claimed_by IS NOT NULL
                UNION ALL
                SELECT '\(entity)', w.id, \(releaser), v.action, v.at
                FROM \(table) w
                CROSS JOIN LATERAL (VALUES ('claimed', \(releasedClaimAt(kind, alias: "w."))),
                                           ('released', \(releasedAt(kind, alias: "w.")))) AS v(action, at)
                WHERE \(releasedClaim(kind, alias: "w."))
                """
        }
        return """
            INSERT INTO claim_events (id, entity_type, entity_id, user_id, action, actor_id, created_at, updated_at)
            SELECT \(historyID(d, "x.entity_id::text || x.action")), x.entity_type, x.entity_id,
                   x.user_id, x.action, x.user_id, x.at, x.at
            FROM (\(parts.joined(separator: "\nUNION ALL\n"))) AS x
            """
    }

    /// The path each row took to its current status, with the matching stamps and actors.
    static func statusChanges(_ d: DemoDataset) -> String {
        let workParts = [("task", "tasks"), ("activity", "activities")].map { entity, table in
            """
            SELECT '\(entity)' AS entity_type, w.id AS entity_id, v.old_status, v.new_status, v.changed_by, v.at
            FROM \(table) w
            CROSS JOIN LATERAL (VALUES
                (NULL, 'open', w.declared_by, w.created_at),
                ('open', 'in_progress', w.claimed_by, CASE WHEN w.status IN ('in_progress', 'completed') THEN w.claimed_at END),
                (CASE WHEN w.claimed_at IS NULL THEN 'open' ELSE 'in_progress' END, 'completed',
                 coalesce(w.claimed_by, w.declared_by), w.completed_at),
                ('open', 'deleted', w.declared_by, w.deleted_at)) AS v(old_status, new_status, changed_by, at)
            WHERE v.at IS NOT NULL
            """
        }
        let listingPart = """
            SELECT 'listing', l.id, v.old_status, v.new_status, l.owned_by, v.at
            FROM listings l
            CROSS JOIN LATERAL (VALUES
                (NULL, 'draft', l.created_at), ('draft', 'active', l.activated_at), ('active', 'pending', l.pending_at),
                ('pending', 'closed', l.closed_at),
                (CASE WHEN l.activated_at IS NULL THEN 'draft' ELSE 'active' END, 'deleted', l.deleted_at))
                AS v(old_status, new_status, at)
            WHERE v.at IS NOT NULL
            """
        return """
            INSERT INTO status_changes (id, entity_type, entity_id, old_status, new_status, changed_by, created_at, updated_at)
            SELECT \(historyID(d, "x.entity_id::text || x.new_status")), x.entity_type, x.entity_id,
                   x.old_status, x.new_status, x.changed_by, x.at, x.at
            FROM (\((workParts + [listingPart]).joined(separator: "\nUNION ALL\n"))) AS x
            """
    }

    /// History rows are keyed by what they record (entity and action/status), which may be
    /// any uuid, so their ids come from md5 (128 bits) rather than `did`: hashint8extended
    /// folds its input to 32 bits, and hundreds of thousands of hashed keys would collide.
    static func historyID(_ d: DemoDataset, _ key: String) -> String {
        "md5('\(d.seed):' || \(key))::uuid"
    }
}
