import Domain
import Foundation
import Postgres

/// Claims (contract §3). A claim is one conditional UPDATE (`claimed_by IS NULL` and claimable):
/// concurrent claimers queue on the row lock and PostgreSQL re-checks the condition against
/// the winner's committed row, so exactly one UPDATE matches; the losers then read who holds it.
///
/// The UPDATE and its `claim_events` row are one statement (a data-modifying CTE), and so is a
/// release of one's own claim: each is atomic by itself, so neither needs a transaction of its
/// own — a claim or release is one round trip instead of four or five. The history row is
/// still inserted after the UPDATE has taken the row lock (the CTE's INSERT reads the UPDATE's
/// RETURNING), which the history order relies on (migration 0010).
extension WorkItemStore {
    /// Claims the item for the caller; `changed: false` when the caller already held it.
    public func claim(_ viewer: Viewer, id: UUID) throws -> (row: ResourceRow, changed: Bool) {
        try pool.withConnection { try claim(viewer, id: id, on: $0) }
    }

    /// `claim` inside the caller's transaction (sync push), or on its own. `claimant` is whose
    /// claim it becomes: the caller, or (an admin handing work over: `reassign`) another user;
    /// the claim event records the caller as its actor either way.
    public func claim(_ viewer: Viewer, id: UUID, on connection: PostgresConnection,
                      for claimant: UUID? = nil) throws -> (row: ResourceRow, changed: Bool) {
        let claimant = claimant ?? viewer.userID
        // A loser can find the item free again if the winner released it in between; try
        // again then (bounded: each round means someone else changed the row).
        for _ in 0..<5 {
            let won = try connection.query("""
                WITH won AS (
                    UPDATE \(unsafeSQL: table) t SET claimed_by = \(claimant), claimed_at = now()
                    WHERE t.id = \(id) AND \(Visibility.workItemRow("t", viewer))
                      AND t.claimed_by IS NULL AND t.status IN ('open', 'in_progress')
                    RETURNING \(jsonAndVersion)),
                event AS (\(claimEvent(id: id, user: claimant, action: "claimed", actor: viewer.userID, from: "won")))
                SELECT json, version FROM won
                """)
            if let row = won.first { return (try ResourceSQL.decodeRow(row), true) }
            let rows = try connection.query("""
                SELECT \(jsonAndVersion), t.status, t.claimed_by, t.claimed_at
                FROM \(unsafeSQL: table) t WHERE t.id = \(id) AND \(Visibility.workItemRow("t", viewer))
                """)
            guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
            let holder: UUID? = try row.decode("claimed_by")
            if holder == claimant { return (try ResourceSQL.decodeRow(row), false) }
            let status = try row.decodeKnown("status", as: WorkItemStatus.self, table: table)
            if !status.isClaimable { throw DomainError.notClaimable(kind.rawValue, status: status) }
            if let holder {
                throw DomainError.claimConflict(kind.rawValue, claimedBy: holder, claimedAt: try row.decode("claimed_at"))
            }
        }
        throw DomainError.claimConflict(kind.rawValue, claimedBy: viewer.userID, claimedAt: Date())
    }

    /// Hands the item's claim to `user` (an admin's action: the console's reassign and
    /// off-boarding): the current holder's claim is released and `user`'s begins, two claim
    /// events with the admin as actor, in the caller's transaction. Both steps are the API's
    /// own release and claim, so the item must be claimable and `user` an active user.
    public func reassign(_ viewer: Viewer, id: UUID, to user: UUID, on connection: PostgresConnection) throws -> ResourceRow {
        guard viewer.isAdmin else { throw DomainError.forbidden("Only administrators may hand a claim to someone else.") }
        let errors = try ResourceSQL.checkUsers([(field: "claimed_by", id: user)], on: connection)
        guard errors.isEmpty else { throw DomainError.validation(errors) }
        let current = try lock(connection, viewer, id: id)
        if current.claimedBy == user { return try get(connection, id) }
        if current.claimedBy != nil { _ = try release(viewer, id: id, on: connection) }
        return try claim(viewer, id: id, on: connection, for: user).row
    }

    /// Releases the claim (claimer or admin); `changed: false` when the item was not claimed.
    public func release(_ viewer: Viewer, id: UUID) throws -> (row: ResourceRow, changed: Bool) {
        try pool.withConnection { try release(viewer, id: id, on: $0) }
    }

    /// `release` inside the caller's transaction (sync push), or on its own.
    ///
    /// The common case, releasing one's own claim, is one statement: an UPDATE conditional on
    /// the caller being the holder (re-checked on the latest row if a concurrent write got
    /// there first). The claimer always sees the item (contract §2), so it needs no visibility
    /// predicate. Anything else — not claimed, someone else's claim (an admin may release it),
    /// not visible — takes the locked path, in a transaction of its own when there is none.
    public func release(_ viewer: Viewer, id: UUID, on connection: PostgresConnection) throws -> (row: ResourceRow, changed: Bool) {
        let released = try connection.query("""
            WITH released AS (
                UPDATE \(unsafeSQL: table) t SET claimed_by = NULL, claimed_at = NULL
                WHERE t.id = \(id) AND t.claimed_by = \(viewer.userID)
                RETURNING \(jsonAndVersion)),
            event AS (\(claimEvent(id: id, user: viewer.userID, action: "released", actor: viewer.userID, from: "released")))
            SELECT json, version FROM released
            """)
        if let row = released.first { return (try ResourceSQL.decodeRow(row), true) }
        guard connection.transactionStatus == .idle else { return try lockedRelease(viewer, id: id, on: connection) }
        return try connection.withTransaction { try lockedRelease(viewer, id: id, on: $0) }
    }

    /// The release of a claim that may be someone else's: the row is locked first, so the
    /// holder recorded in `claim_events` is the one whose claim ends.
    func lockedRelease(_ viewer: Viewer, id: UUID, on connection: PostgresConnection) throws -> (row: ResourceRow, changed: Bool) {
        let rows = try connection.query("""
            SELECT t.claimed_by FROM \(unsafeSQL: table) t
            WHERE t.id = \(id) AND \(Visibility.workItemRow("t", viewer)) FOR UPDATE OF t
            """)
        guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
        guard let holder: UUID = try row.decode("claimed_by") else { return (try get(connection, id), false) }
        guard holder == viewer.userID || viewer.isAdmin else {
            throw DomainError.forbidden("Only the claimer or an administrator may release this claim.")
        }
        let updated = try connection.query("""
            WITH released AS (
                UPDATE \(unsafeSQL: table) t SET claimed_by = NULL, claimed_at = NULL WHERE t.id = \(id)
                RETURNING \(jsonAndVersion)),
            event AS (\(claimEvent(id: id, user: holder, action: "released", actor: viewer.userID, from: "released")))
            SELECT json, version FROM released
            """)
        guard let released = updated.first else { throw DomainError.notFound(kind.rawValue) }
        return (try ResourceSQL.decodeRow(released), true)
    }

    /// The `claim_events` row of a claim or release, as an `INSERT … SELECT` from the CTE
    /// (`from`) that changed the row: nothing is recorded when it changed nothing.
    func claimEvent(id: UUID, user: UUID, action: String, actor: UUID, from changed: String) -> PostgresQuery {
        """
        INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id)
        SELECT \(kind.rawValue), \(id), \(user), \(action), \(actor) FROM \(unsafeSQL: changed)
        """
    }
}
