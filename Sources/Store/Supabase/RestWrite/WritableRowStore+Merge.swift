import Domain
import Foundation
import Postgres

/// The merge a PostgREST upsert (`resolution=merge-duplicates`) and a `/rest/v1` PATCH make on
/// a listing, task or activity: only the fields sent change (`modify` with `patch: true`, so
/// permissions, status stamps and history rows are `/v1`'s), and a write that would change
/// nothing writes nothing — no version bump, no `status_changes` row — so an app replaying its
/// pending upserts after a lost response changes nothing the second time.
extension WritableRowStore {
    /// Patches the visible row `id` with the fields `input` sent unless it holds them all
    /// already; nil when no visible row has the id. A caller who sees the row but may not
    /// change it is refused (403) even when nothing would change, as `modify` refuses it.
    public func mergeIfVisible(_ viewer: Viewer, id: UUID, input: Input, check: VersionCheck,
                               on connection: PostgresConnection) throws -> ResourceRow? {
        let description = resource.description
        let rows = try connection.query("""
            SELECT dispatch_json(r)::text AS json, r.version, \(sameAsRow(input, "r")) AS same,
                   \(mayUpdate("r", viewer)) AS may_update
            FROM \(unsafeSQL: description.table) r
            WHERE r.id = \(id) AND \(Visibility.predicate(description.visibility, alias: "r", viewer))
            FOR UPDATE OF r
            """)
        guard let row = rows.first else { return nil }
        guard try row.decode("same", as: Bool.self) else {
            return try modify(connection, viewer, id: id, input: input, patch: true, check: check)
        }
        guard try row.decode("may_update", as: Bool.self) else {
            throw DomainError.forbidden("You may see this \(noun) but not change it.")
        }
        let current = try ResourceSQL.decodeRow(row)
        guard check.allows(version: current.version) else { throw DomainError.preconditionFailed(currentVersion: current.version) }
        return current
    }

    /// A merge upsert: the visible row merged (`mergeIfVisible`), else a new row with this id
    /// declared/owned by the caller. An id held by a row the caller cannot see answers 409,
    /// as `/v1`'s create does: it reveals that the id is taken, never the row.
    public func upsertMerging(_ viewer: Viewer, id: UUID, input: Input, check: VersionCheck,
                              on connection: PostgresConnection) throws -> CreateResult {
        if let row = try mergeIfVisible(viewer, id: id, input: input, check: check, on: connection) {
            return CreateResult(row: row, created: false)
        }
        guard check.allows(version: nil) else { throw DomainError.preconditionFailed(currentVersion: nil) }
        if let row = try insert(connection, viewer, id: id, input: input) { return CreateResult(row: row, created: true) }
        throw DomainError.idTaken(noun)
    }

    /// SQL: the caller may change row `alias` (contract §2), beyond seeing it.
    private func mayUpdate(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        switch resource {
        case .listings: Visibility.mayUpdateListing(alias, viewer)
        case .tasks, .activities: Visibility.mayUpdateWorkItem(alias, viewer)
        default: "FALSE"
        }
    }
}
