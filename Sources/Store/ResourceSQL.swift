import Domain
import Foundation
import Postgres

/// SQL shared by the listing and work-item stores: pages, reference checks, history rows.
enum ResourceSQL {
    /// One page of `table` (alias `alias`) under `visibility` and `filter`, ordered by
    /// (`updated_at`, `id`) — the `*_updated_at_id_idx` order. Fetches one row more than the
    /// limit to know whether another page exists.
    static func page(_ connection: PostgresConnection, table: String, alias: String, visibility: PostgresQuery,
                     filter: ListFilter, conditions extra: [PostgresQuery] = []) throws -> ResourcePage {
        let a = alias
        var conditions: [PostgresQuery] = [visibility] + extra
        if !filter.statuses.isEmpty {
            conditions.append("\(unsafeSQL: a).status = ANY(\(filter.statuses))")
        }
        if !filter.includeDeleted, !filter.statuses.contains("deleted") {
            conditions.append("\(unsafeSQL: a).deleted_at IS NULL")
        }
        if let since = filter.updatedSince {
            conditions.append("\(unsafeSQL: a).updated_at > \(since)")
        }
        if let after = filter.after {
            conditions.append("""
                (\(unsafeSQL: a).updated_at, \(unsafeSQL: a).id)
                  > (timestamptz 'epoch' + \(after.updatedAtMicros) * interval '1 microsecond', \(after.id))
                """)
        }
        let rows = try connection.query("""
            SELECT dispatch_json(\(unsafeSQL: a))::text AS json, \(unsafeSQL: a).id,
                   (extract(epoch FROM \(unsafeSQL: a).updated_at) * 1000000)::int8 AS micros
            FROM \(unsafeSQL: table) \(unsafeSQL: a)
            WHERE \(PostgresQuery.joined(conditions, separator: " AND "))
            ORDER BY \(unsafeSQL: a).updated_at, \(unsafeSQL: a).id
            LIMIT \(filter.limit + 1)
            """)
        var json: [String] = []
        json.reserveCapacity(min(rows.count, filter.limit))
        var last: KeysetPosition?
        for row in rows.prefix(filter.limit) {
            json.append(try row.decode("json"))
            last = KeysetPosition(updatedAtMicros: try row.decode("micros"), id: try row.decode("id"))
        }
        return ResourcePage(rows: json, next: rows.count > filter.limit ? last : nil)
    }

    /// The ones among `ids` that are active users (only they can be referenced).
    static func activeUsers(_ ids: [UUID], on connection: PostgresConnection) throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let rows = try connection.query("SELECT id FROM users WHERE id = ANY(\(ids)) AND deactivated_at IS NULL")
        return Set(try rows.map { try $0.decode("id", as: UUID.self) })
    }

    /// Errors for user references (`field`, id) that are not active users.
    static func checkUsers(_ references: [(field: String, id: UUID)], on connection: PostgresConnection) throws -> [FieldError] {
        let active = try activeUsers(references.map(\.id), on: connection)
        return references.filter { !active.contains($0.id) }.map {
            FieldError(field: $0.field, code: "unknown_user", message: "Must be the id of an active user.")
        }
    }

    /// Whether `listingID` names a listing the viewer sees that is not deleted (SPEC 2: a
    /// work item's `listing_id` must be a listing its author can see).
    static func checkListing(_ listingID: UUID, _ viewer: Viewer, on connection: PostgresConnection) throws -> FieldError? {
        let rows = try connection.query("""
            SELECT 1 FROM listings l WHERE l.id = \(listingID) AND l.deleted_at IS NULL AND \(Visibility.listing("l", viewer))
            """)
        guard rows.isEmpty else { return nil }
        return FieldError(field: "listing_id", code: "unknown_listing", message: "Must be the id of a listing you can see.")
    }

    /// The history row of a status change, in the transaction of the write that made it.
    static func recordStatusChange(entityType: String, id: UUID, old: String?, new: String, by user: UUID,
                                   on connection: PostgresConnection) throws {
        try connection.execute("""
            INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by)
            VALUES (\(entityType), \(id), \(old), \(new), \(user))
            """)
    }

    static func decodeRow(_ row: PostgresRow) throws -> ResourceRow {
        ResourceRow(json: try row.decode("json"), version: try row.decode("version"))
    }
}
