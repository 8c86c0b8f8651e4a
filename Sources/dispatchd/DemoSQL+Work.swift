/// Tasks and activities: the same shape (contract §1), so one generator with per-kind extras.
extension DemoSQL {
    struct WorkKind {
        let table: String
        let idKind: Int
        /// Base of the salts of this kind's random choices (keeps tasks and activities independent).
        let salt: Int
        let count: Int
        let titles: [String]
    }

    static let taskTitles = ["Order photos", "Book staging consultation", "Schedule home inspection",
                             "Send disclosure package", "Update MLS listing", "Collect signed offer", "Arrange lockbox",
                             "Follow up with appraiser", "Prepare market analysis", "Confirm closing date",
                             "Print feature sheets", "Renew listing agreement", "Post on social media", "Request survey",
                             "Review strata documents", "Coordinate cleaners", "Install sign", "Remove sign",
                             "Order floor plan", "Send price change notice", "Verify square footage",
                             "Chase deposit receipt", "Book photographer", "File paperwork with brokerage"]
    static let activityTitles = ["Call seller", "Email buyer's agent", "Meet with lender", "Show property",
                                 "Follow up after open house", "Call about offer", "Email inspection report",
                                 "Walk-through with buyers", "Check in with tenant", "Review offer with client",
                                 "Email listing feedback", "Meet contractor"]
    static let descriptions = ["Client asked for this before the weekend.", "See the notes from the last call.",
                               "Needs the signed forms first.", "Coordinate with the assigned staff.",
                               "Low priority unless the buyer pushes.", "Reminder from the team meeting.",
                               "Keep the client in the loop by email.", "Check the listing file for details."]
    static let activityTypes = ["call", "email", "meeting", "show_property", "follow_up", "other"]

    static func taskKind(_ d: DemoDataset) -> WorkKind {
        WorkKind(table: "tasks", idKind: 3, salt: 200, count: d.tasks, titles: taskTitles)
    }

    static func activityKind(_ d: DemoDataset) -> WorkKind {
        WorkKind(table: "activities", idKind: 4, salt: 300, count: d.activities, titles: activityTitles)
    }

    static func tasks(_ d: DemoDataset) -> String {
        workItems(d, taskKind(d), extraColumns: "", extraValues: "")
    }

    static func activities(_ d: DemoDataset) -> String {
        // Type by weight (calls and emails dominate); a duration for what takes time.
        let type = """
            CASE WHEN pg_temp.du(350, i) < 0.30 THEN 'call' WHEN pg_temp.du(350, i) < 0.55 THEN 'email'
                 WHEN pg_temp.du(350, i) < 0.67 THEN 'meeting' WHEN pg_temp.du(350, i) < 0.85 THEN 'show_property'
                 WHEN pg_temp.du(350, i) < 0.95 THEN 'follow_up' ELSE 'other' END
            """
        let duration = """
            CASE WHEN pg_temp.du(350, i) < 0.30 THEN 60 + pg_temp.dpick(351, i, 1740)
                 WHEN pg_temp.du(350, i) < 0.55 THEN NULL
                 WHEN pg_temp.du(350, i) < 0.85 THEN 1800 + pg_temp.dpick(351, i, 3600)
                 WHEN pg_temp.du(350, i) < 0.95 THEN 300 + pg_temp.dpick(351, i, 600) END
            """
        return workItems(d, activityKind(d), extraColumns: "type, duration_seconds, ", extraValues: "\(type) AS type, \(duration) AS duration_seconds, ")
    }

    /// Status mix: open 50 %, in progress 12 %, completed 33 %, deleted 5 %. Claimed: every item
    /// in progress, 15 % of open, 30 % of completed, 10 % of deleted — about 30 % overall.
    /// 85 % are on a listing and mostly declared by its owner or staff.
    static func workItems(_ d: DemoDataset, _ kind: WorkKind, extraColumns: String, extraValues: String) -> String {
        let s = kind.salt
        return """
            WITH g AS MATERIALIZED (
                SELECT i, pg_temp.did(\(kind.idKind), i) AS id,
                       CASE WHEN pg_temp.du(\(s), i) < 0.85 THEN pg_temp.did(2, 1 + pg_temp.dpick(\(s + 1), i, \(d.listings))) END AS listing_id,
                       pg_temp.du(\(s + 2), i) AS status_draw,
                       \(extraValues)
                       \(pick(kind.titles, salt: s + 3, n: "i")) AS base_title
                FROM generate_series(1, \(kind.count)) AS i
            ), b AS (
                SELECT g.*, l.address,
                       CASE WHEN status_draw < 0.50 THEN 'open' WHEN status_draw < 0.62 THEN 'in_progress'
                            WHEN status_draw < 0.95 THEN 'completed' ELSE 'deleted' END AS status,
                       CASE WHEN l.id IS NOT NULL THEN pg_temp.dbetween(\(s + 4), i, l.created_at, 1)
                            ELSE now() - pg_temp.du(\(s + 4), i) * interval '365 days' END AS created_at,
                       CASE WHEN l.id IS NOT NULL AND pg_temp.du(\(s + 5), i) < 0.7
                            THEN CASE WHEN l.assigned_staff IS NOT NULL AND pg_temp.du(\(s + 6), i) < 0.4
                                      THEN l.assigned_staff ELSE l.owned_by END
                            WHEN pg_temp.du(\(s + 5), i) > 0.95 THEN pg_temp.dadmin(\(s + 7), i)
                            ELSE pg_temp.drealtor(\(s + 7), i) END AS declared_by,
                       CASE WHEN l.id IS NOT NULL AND pg_temp.du(\(s + 8), i) < 0.5
                            THEN coalesce(l.assigned_staff, l.owned_by)
                            ELSE pg_temp.drealtor(\(s + 9), i) END AS claimer
                FROM g LEFT JOIN listings l ON l.id = g.listing_id
            ), c AS (
                SELECT b.*,
                       CASE status WHEN 'open' THEN pg_temp.du(\(s + 10), i) < 0.15 WHEN 'in_progress' THEN true
                                   WHEN 'completed' THEN pg_temp.du(\(s + 10), i) < 0.30 ELSE pg_temp.du(\(s + 10), i) < 0.10
                       END AS claimed
                FROM b
            ), e AS (
                SELECT c.*, CASE WHEN claimed THEN pg_temp.dbetween(\(s + 11), i, created_at, 0.5) END AS claimed_at
                FROM c
            ), f AS (
                SELECT e.*,
                       CASE WHEN status = 'completed' THEN pg_temp.dbetween(\(s + 12), i, coalesce(claimed_at, created_at), 1) END AS completed_at,
                       CASE WHEN status = 'deleted' THEN pg_temp.dbetween(\(s + 12), i, coalesce(claimed_at, created_at), 1) END AS deleted_at,
                       CASE WHEN \(releasedClaim(kind)) THEN \(releasedAt(kind)) END AS released_at
                FROM e
            )
            INSERT INTO \(kind.table) (id, title, description, \(extraColumns)due_date, priority, status, declared_by, claimed_by,
                               listing_id, created_via, source_slack_messages, claimed_at, completed_at, deleted_at,
                               created_at, updated_at, version)
            SELECT id,
                   CASE WHEN address IS NULL THEN base_title ELSE base_title || ' — ' || address END,
                   CASE WHEN pg_temp.du(\(s + 13), i) < 0.4 THEN \(pick(descriptions, salt: s + 14, n: "i")) END,
                   \(extraColumns)
                   CASE WHEN pg_temp.du(\(s + 15), i) < 0.7 THEN created_at + (1 + pg_temp.du(\(s + 16), i) * 30) * interval '1 day' END,
                   CASE WHEN pg_temp.du(\(s + 17), i) < 0.25 THEN 'low' WHEN pg_temp.du(\(s + 17), i) < 0.70 THEN 'medium'
                        WHEN pg_temp.du(\(s + 17), i) < 0.92 THEN 'high' ELSE 'urgent' END,
                   status, declared_by, CASE WHEN claimed THEN claimer END, listing_id,
                   CASE WHEN pg_temp.du(\(s + 18), i) < 0.08 THEN 'slack' ELSE 'dispatch' END,
                   CASE WHEN pg_temp.du(\(s + 18), i) < 0.08 THEN ARRAY['@team ' || base_title] END,
                   claimed_at, completed_at, deleted_at, created_at,
                   greatest(created_at, claimed_at, completed_at, deleted_at, released_at),
                   -- One write per history event: claims, releases, status changes (see history).
                   1 + claimed::int + 2 * (released_at IS NOT NULL)::int + (status = 'in_progress')::int + (status = 'deleted')::int
                     + CASE WHEN status = 'completed' THEN 1 + claimed::int ELSE 0 END
            FROM f
            """
    }

    /// ~10 % of the open, unclaimed items were claimed once and released again. Decided from
    /// the row's id (not its row number) so that `history` can recompute it from the table.
    static func releasedClaim(_ kind: WorkKind, alias: String = "") -> String {
        "(\(alias)status = 'open' AND \(alias)claimed_at IS NULL AND pg_temp.du(\(kind.salt + 20), hashtextextended(\(alias)id::text, 0)) < 0.1)"
    }

    static func releasedClaimAt(_ kind: WorkKind, alias: String = "") -> String {
        "pg_temp.dbetween(\(kind.salt + 21), hashtextextended(\(alias)id::text, 0), \(alias)created_at, 0.5)"
    }

    static func releasedAt(_ kind: WorkKind, alias: String = "") -> String {
        "pg_temp.dbetween(\(kind.salt + 22), hashtextextended(\(alias)id::text, 0), \(releasedClaimAt(kind, alias: alias)), 0.5)"
    }
}
