import Domain
import Foundation
import Postgres

/// Claims (contract §3). A claim is one conditional UPDATE (`claimed_by IS NULL` and claimable):
/// concurrent claimers queue on the row lock and PostgreSQL re-checks the condition against
/// the winner's committed row, so exactly one UPDATE matches; the losers then read who holds it.
extension WorkItemStore {
    /// Claims the item for the caller; `changed: false` when the caller already held it.
    public func claim(_ viewer: Viewer, id: UUID) throws -> (row: ResourceRow, changed: Bool) {
        try pool.withTransaction { try claim(viewer, id: id, on: $0) }
    }

    /// `claim` inside the caller's transaction (sync push).
    public func claim(_ viewer: Viewer, id: UUID, on connection: PostgresConnection) throws -> (row: ResourceRow, changed: Bool) {
        // A loser can find the item free again if the winner released it in between; try
        // again then (bounded: each round means someone else changed the row).
        for _ in 0..<5 {
            let won = try connection.query("""
                UPDATE \(unsafeSQL: table) t SET claimed_by = \(viewer.userID), claimed_at = now()
                WHERE t.id = \(id) AND \(Visibility.workItem("t", viewer))
                  AND t.claimed_by IS NULL AND t.status IN ('open', 'in_progress')
                RETURNING dispatch_json(t)::text AS json, t.version
                """)
            if let row = won.first {
                try recordClaimEvent(connection, id: id, user: viewer.userID, action: "claimed", actor: viewer.userID)
                return (try ResourceSQL.decodeRow(row), true)
            }
            let rows = try connection.query("""
                SELECT dispatch_json(t)::text AS json, t.version, t.status, t.claimed_by, t.claimed_at
                FROM \(unsafeSQL: table) t WHERE t.id = \(id) AND \(Visibility.workItem("t", viewer))
                """)
            guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
            let holder: UUID? = try row.decode("claimed_by")
            if holder == viewer.userID { return (try ResourceSQL.decodeRow(row), false) }
            let status = try row.decodeKnown("status", as: WorkItemStatus.self, table: table)
            if !status.isClaimable { throw DomainError.notClaimable(kind.rawValue, status: status) }
            if let holder {
                throw DomainError.claimConflict(kind.rawValue, claimedBy: holder, claimedAt: try row.decode("claimed_at"))
            }
        }
        throw DomainError.claimConflict(kind.rawValue, claimedBy: viewer.userID, claimedAt: Date())
    }

    /// Releases the claim (claimer or admin); `changed: false` when the item was not claimed.
    public func release(_ viewer: Viewer, id: UUID) throws -> (row: ResourceRow, changed: Bool) {
        try pool.withTransaction { try release(viewer, id: id, on: $0) }
    }

    /// `release` inside the caller's transaction (sync push).
    public func release(_ viewer: Viewer, id: UUID, on connection: PostgresConnection) throws -> (row: ResourceRow, changed: Bool) {
        let rows = try connection.query("""
            SELECT t.claimed_by FROM \(unsafeSQL: table) t
            WHERE t.id = \(id) AND \(Visibility.workItem("t", viewer)) FOR UPDATE OF t
            """)
        guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
        guard let holder: UUID = try row.decode("claimed_by") else { return (try get(connection, id), false) }
        guard holder == viewer.userID || viewer.isAdmin else {
            throw DomainError.forbidden("Only the claimer or an administrator may release this claim.")
        }
        let updated = try connection.query("""
            UPDATE \(unsafeSQL: table) t SET claimed_by = NULL, claimed_at = NULL WHERE t.id = \(id)
            RETURNING dispatch_json(t)::text AS json, t.version
            """)
        guard let released = updated.first else { throw DomainError.notFound(kind.rawValue) }
        try recordClaimEvent(connection, id: id, user: holder, action: "released", actor: viewer.userID)
        return (try ResourceSQL.decodeRow(released), true)
    }

    func recordClaimEvent(_ connection: PostgresConnection, id: UUID, user: UUID, action: String, actor: UUID) throws {
        try connection.execute("""
            INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id)
            VALUES (\(kind.rawValue), \(id), \(user), \(action), \(actor))
            """)
    }
}
