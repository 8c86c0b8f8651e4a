import Domain
import Foundation
import Postgres

/// `POST|DELETE /v1/{r}/{id}/claim` for the caller `userID`, with the caller's account read in
/// the claim's or release's own statement (`CallerSQL`): one round trip where the account
/// check before it was a second, ~60–80 µs of the server's and PostgreSQL's CPU per write. The
/// UPDATE runs only for an active caller, under the role its row holds; every answer other than
/// "done in one statement" (someone else holds it, not claimable, not visible, an admin
/// releasing another's claim) takes the paths of `WorkItemStore+Claims` with that role.
extension WorkItemStore {
    /// `claim` for the caller `userID`; `.callerInactive` (nothing written) when the account
    /// is gone or deactivated.
    public func claim(callerID userID: UUID, id: UUID) throws -> CallerWrite<(row: ResourceRow, changed: Bool)> {
        try pool.withConnection { connection in
            let rows = try connection.query("""
                WITH \(CallerSQL.cte(userID)),
                won AS (
                    UPDATE \(unsafeSQL: table) t SET claimed_by = \(userID), claimed_at = now()
                    WHERE t.id = \(id) AND \(CallerSQL.allows(Visibility.workItemRow("t", subject: .user(userID))))
                      AND t.claimed_by IS NULL AND t.status IN ('open', 'in_progress')
                    RETURNING \(jsonAndVersion)),
                event AS (\(claimEvent(id: id, user: userID, action: "claimed", actor: userID, from: "won")))
                SELECT c.user_type, won.json, won.version FROM caller c LEFT JOIN won ON TRUE
                """)
            guard let row = rows.first else { return .callerInactive }
            let viewer = try CallerSQL.viewer(userID, row)
            if try row.decode("json", as: String?.self) != nil { return .written((try ResourceSQL.decodeRow(row), true)) }
            // Not won: who holds it, or why not, read as `claim` does (it tries the UPDATE again
            // first, which also covers a release committed in between).
            return .written(try claim(viewer, id: id, on: connection))
        }
    }

    /// `release` for the caller `userID`; `.callerInactive` (nothing written) when the account
    /// is gone or deactivated.
    public func release(callerID userID: UUID, id: UUID) throws -> CallerWrite<(row: ResourceRow, changed: Bool)> {
        try pool.withConnection { connection in
            let rows = try connection.query("""
                WITH \(CallerSQL.cte(userID)),
                released AS (
                    UPDATE \(unsafeSQL: table) t SET claimed_by = NULL, claimed_at = NULL
                    WHERE t.id = \(id) AND t.claimed_by = \(userID) AND EXISTS (SELECT 1 FROM caller)
                    RETURNING \(jsonAndVersion)),
                event AS (\(claimEvent(id: id, user: userID, action: "released", actor: userID, from: "released")))
                SELECT c.user_type, released.json, released.version FROM caller c LEFT JOIN released ON TRUE
                """)
            guard let row = rows.first else { return .callerInactive }
            let viewer = try CallerSQL.viewer(userID, row)
            if try row.decode("json", as: String?.self) != nil { return .written((try ResourceSQL.decodeRow(row), true)) }
            // Not the caller's claim: the locked path (an admin may release another's claim).
            return .written(try connection.withTransaction { try lockedRelease(viewer, id: id, on: $0) })
        }
    }
}
