import Domain
import Foundation
import Postgres

/// Answers "why does (or doesn't) this user see that row" for the console.
///
/// The verdict is the API's own one-row predicate (`Visibility.predicateForOneRow` of the
/// resource's rule, what `GET /v1/{r}/{id}` filters with), evaluated for the user in the same
/// statement that reads the clauses, so both describe one snapshot of the row. The clauses
/// are the parties contract §2 names, read off the row; that their OR equals the verdict is
/// what AccessExplainerTests checks over random data, against the API's answer too. Read-only.
public struct AccessExplainer: Sendable {
    public let pool: PostgresPool
    /// The history shown is the newest this many events (a busy pair has few; this bounds a page).
    public static let historyLimit = 200
    /// Work items named as the reason a listing is visible.
    static let throughLimit = 5

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The explanation for user `userID` and the row; 404-style errors for an unknown user or row.
    public func explain(userID: UUID, entity: AccessExplanation.Entity, id: UUID) throws -> AccessExplanation {
        try pool.withConnection { connection in
            try connection.withTransaction(isolation: .repeatableRead) { connection in
                try connection.execute("SET TRANSACTION READ ONLY")
                return try explain(userID: userID, entity: entity, id: id, on: connection)
            }
        }
    }

    func explain(userID: UUID, entity: AccessExplanation.Entity, id: UUID,
                 on connection: PostgresConnection) throws -> AccessExplanation {
        guard let user = try connection.query("""
            SELECT user_type = 'admin' AS is_admin, deactivated_at IS NOT NULL AS deactivated FROM users WHERE id = \(userID)
            """).first else { throw DomainError.notFound("user") }
        let viewer = Viewer(userID: userID, isAdmin: try user.decode("is_admin"))
        let resource: Resource = switch entity {
        case .listing: .listings
        case .task: .tasks
        case .activity: .activities
        }
        let predicate = Visibility.predicateForOneRow(resource.description.visibility, alias: "r", viewer)
        guard let row = try connection.query(clauseQuery(entity, id: id, userID: userID, predicate: predicate)).first else {
            throw DomainError.notFound(entity.rawValue)
        }
        var clauses = [AccessExplanation.Clause(kind: .admin, holds: viewer.isAdmin)]
        // The statement selects the clauses of the row's kind only (a listing has no declarer).
        for kind in AccessExplanation.Clause.Kind.allCases where row.columns.names.contains(kind.rawValue) {
            clauses.append(.init(kind: kind, holds: try row.decode(kind.rawValue)))
        }
        if entity == .listing, let index = clauses.firstIndex(where: { $0.kind == .viaWorkItem }), clauses[index].holds {
            clauses[index].through = try workItemsGranting(listing: id, userID: userID, on: connection)
        }
        return AccessExplanation(entity: entity, id: id, userID: userID, userIsAdmin: viewer.isAdmin,
                                 userDeactivated: try user.decode("deactivated"), rowDeleted: try row.decode("deleted"),
                                 predicateHolds: try row.decode("visible"), clauses: clauses,
                                 history: try history(userID: userID, entity: entity, id: id, on: connection))
    }

    /// The verdict and one column per clause of contract §2 for the row's kind. The predicate
    /// is NULL where an equality meets a NULL column and nothing else holds; a WHERE treats
    /// that as false, and so does the COALESCE here. Each clause is
    /// an equality on the row or its listing, COALESCEd so that "no listing" or "no claimer"
    /// reads as false rather than unknown.
    private func clauseQuery(_ entity: AccessExplanation.Entity, id: UUID, userID: UUID,
                             predicate: PostgresQuery) -> PostgresQuery {
        if entity == .listing {
            return """
                SELECT COALESCE(\(predicate), FALSE) AS visible, r.deleted_at IS NOT NULL AS deleted,
                       r.owned_by = \(userID) AS listing_owner,
                       COALESCE(r.assigned_staff = \(userID), FALSE) AS listing_staff,
                       (EXISTS (SELECT 1 FROM tasks t WHERE t.listing_id = r.id AND \(userID) IN (t.declared_by, t.claimed_by))
                        OR EXISTS (SELECT 1 FROM activities a WHERE a.listing_id = r.id AND \(userID) IN (a.declared_by, a.claimed_by)))
                         AS via_work_item
                FROM listings r WHERE r.id = \(id)
                """
        }
        return """
            SELECT COALESCE(\(predicate), FALSE) AS visible, r.deleted_at IS NOT NULL AS deleted,
                   r.declared_by = \(userID) AS declarer,
                   COALESCE(r.claimed_by = \(userID), FALSE) AS claimer,
                   COALESCE(l.owned_by = \(userID), FALSE) AS listing_owner,
                   COALESCE(l.assigned_staff = \(userID), FALSE) AS listing_staff
            FROM \(unsafeSQL: entity.table) r LEFT JOIN listings l ON l.id = r.listing_id
            WHERE r.id = \(id)
            """
    }

    private func workItemsGranting(listing: UUID, userID: UUID,
                                   on connection: PostgresConnection) throws -> [AccessExplanation.WorkItemRef] {
        let limit = String(Self.throughLimit)
        return try connection.query("""
            (SELECT 'task' AS kind, t.id FROM tasks t
             WHERE t.listing_id = \(listing) AND \(userID) IN (t.declared_by, t.claimed_by) ORDER BY t.id LIMIT \(unsafeSQL: limit))
            UNION ALL
            (SELECT 'activity', a.id FROM activities a
             WHERE a.listing_id = \(listing) AND \(userID) IN (a.declared_by, a.claimed_by) ORDER BY a.id LIMIT \(unsafeSQL: limit))
            LIMIT \(unsafeSQL: limit)
            """).map { AccessExplanation.WorkItemRef(kind: try $0.decode("kind"), id: try $0.decode("id")) }
    }

    /// Grants and revocations of the pair (what the sync feed turned into deliveries and
    /// `removed` entries), and the user's claims and releases of the item, newest last.
    private func history(userID: UUID, entity: AccessExplanation.Entity, id: UUID,
                         on connection: PostgresConnection) throws -> [AccessExplanation.Event] {
        let limit = String(Self.historyLimit)
        let rows = try connection.query("""
            SELECT at, kind, actor, entity_type, entity_id FROM (
                SELECT c.created_at AS at, CASE WHEN c.granted THEN 'granted' ELSE 'revoked' END AS kind,
                       NULL::uuid AS actor, c.entity_type, c.entity_id, c.id, c.txid, 1 AS rank
                FROM sync_access_changes c
                WHERE c.user_id = \(userID) AND c.entity_type = \(entity.rawValue) AND c.entity_id = \(id)
                UNION ALL
                SELECT e.created_at, e.action, e.actor_id, e.entity_type, e.entity_id, e.id, e.txid, 0
                FROM claim_events e
                WHERE e.user_id = \(userID) AND e.entity_type = \(entity.rawValue) AND e.entity_id = \(id)
                ORDER BY 1 DESC, 6 DESC LIMIT \(unsafeSQL: limit)) newest
            -- The events of one transaction stay together, in the order of its first one (a
            -- claim event is stamped with the clock, an access record with the transaction's
            -- start), the claim event (the cause) before the access record (the effect).
            ORDER BY min(at) OVER (PARTITION BY txid), txid, rank, at, id
            """)
        return try rows.compactMap { row in
            guard let kind = AccessExplanation.Event.Kind(rawValue: try row.decode("kind")),
                  let type = AccessExplanation.Entity(rawValue: try row.decode("entity_type")) else { return nil }
            return AccessExplanation.Event(at: try row.decode("at"), kind: kind, actor: try row.decode("actor"),
                                           entity: type, entityID: try row.decode("entity_id"))
        }
    }
}
