import Domain
import Foundation
import Postgres

/// SQL shared by the listing and work-item stores: pages, reference checks, history rows.
enum ResourceSQL {
    /// One page of `table` (alias `alias`) under `visibility` and `filter`, in `filter.order`
    /// (default (`updated_at`, `id`), the `*_updated_at_id_idx` order), cut at
    /// `filter.maxBytes` of row JSON by `ByteBudgetPage`. Fetches one row more than the limit
    /// to know whether another page exists.
    static func page(_ connection: PostgresConnection, table: String, alias: String, visibility: PostgresQuery,
                     filter: ListFilter, conditions extra: [PostgresQuery] = [], keysFirst: Bool = false) throws -> ResourcePage {
        try page(connection, pageQuery(table: table, alias: alias, visibility: visibility, filter: filter,
                                       conditions: extra, keysFirst: keysFirst))
    }

    /// Runs a statement built by `pageQuery`.
    static func page(_ connection: PostgresConnection, _ query: PostgresQuery) throws -> ResourcePage {
        let page = try ByteBudgetPage.decode(try connection.query(query))
        return ResourcePage(rows: page.rows.map(\.json), next: page.next)
    }

    /// The statement of `page`. `keysFirst`: the page's keys are found first, from the columns
    /// the order's index carries (`0015_list_index_only.sql`: `updated_at` lists of tasks and
    /// activities), and only the rows kept are read whole for their JSON. The visibility
    /// predicate then runs on index entries (an index-only scan) instead of fetching every row
    /// the walk visits from the heap, ~9 rows per row kept for a realtor who sees 11 % of the
    /// tasks. Without such an index it would only add a primary-key probe per row.
    static func pageQuery(table: String, alias: String, visibility: PostgresQuery, filter: ListFilter,
                          conditions extra: [PostgresQuery] = [], keysFirst: Bool = false) -> PostgresQuery {
        let a = alias
        let order = filter.order
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
            conditions.append(order.after(a, after))
        }
        let budget = ByteBudgetPage(limit: filter.limit, maxBytes: filter.maxBytes, descending: order.descending)
        // The row limit is written into the text, not bound (an Int, so splicing is safe; a few
        // distinct values). Bound, a cached statement's generic plan assumes an unknown LIMIT of
        // 10 rows and walks the order's index expecting to stop early, even for a caller who
        // sees nothing (every entry walked; ListPlanTests). The viewer's id is in the text for
        // the same reason (`Visibility.workItemScan`).
        let rowLimit = String(filter.limit + 1)
        let selected: PostgresQuery = """
            FROM \(unsafeSQL: table) \(unsafeSQL: a)
            WHERE \(PostgresQuery.joined(conditions, separator: " AND "))
            ORDER BY \(unsafeSQL: order.orderBy(a))
            LIMIT \(unsafeSQL: rowLimit)
            """
        guard keysFirst else {
            return budget.query("""
                SELECT \(StoredRowJSON.text(a, table: table)) AS json, \(unsafeSQL: a).id, \(unsafeSQL: a).version,
                       \(unsafeSQL: order.key(a)) AS sort_key
                \(selected)
                """)
        }
        // The same snapshot reads both, so the joined row is the version the keys came from.
        // The outer LIMIT changes no result (the keys are already limited); it keeps PostgreSQL
        // from flattening this join into the budget's window query, which would then compute
        // dispatch_json twice per row (once for the running byte sum, once for the output).
        return budget.query("""
            SELECT \(StoredRowJSON.text("page_row", table: table)) AS json, page_row.id, page_row.version, page_keys.sort_key
            FROM (SELECT \(unsafeSQL: a).id, \(unsafeSQL: order.key(a)) AS sort_key \(selected)) page_keys
            JOIN \(unsafeSQL: table) page_row ON page_row.id = page_keys.id
            LIMIT \(unsafeSQL: rowLimit)
            """)
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
            FieldError(field: $0.field, code: .unknownUser, message: "Must be the id of an active user.")
        }
    }

    /// Whether `listingID` names a listing the viewer sees that is not deleted (contract §2: a
    /// work item's `listing_id` must be a listing its author can see).
    static func checkListing(_ listingID: UUID, _ viewer: Viewer, on connection: PostgresConnection) throws -> FieldError? {
        let rows = try connection.query("SELECT \(usableListing(listingID, viewer)) AS usable")
        guard try rows.first?.decode("usable", as: Bool.self) != true else { return nil }
        return unknownListing
    }

    /// SQL: TRUE when `listingID` names a listing the viewer sees that is not deleted; for
    /// `checkListing`, and for writes that check it in their own statement.
    static func usableListing(_ listingID: UUID, _ viewer: Viewer) -> PostgresQuery {
        usableListing(listingID, visible: Visibility.listing("l", viewer))
    }

    /// The same with `visible`, the visibility rule over the listing `l` (a statement that
    /// reads the caller's role itself passes `CallerSQL.sees(…)`).
    static func usableListing(_ listingID: UUID, visible: PostgresQuery) -> PostgresQuery {
        "EXISTS (SELECT 1 FROM listings l WHERE l.id = \(listingID) AND l.deleted_at IS NULL AND \(visible))"
    }

    static let unknownListing = FieldError(field: "listing_id", code: .unknownListing, message: "Must be the id of a listing you can see.")

    /// The history row of a status change, in the transaction of the write that made it.
    static func recordStatusChange(entityType: String, id: UUID, old: String?, new: String, by user: UUID,
                                   on connection: PostgresConnection) throws {
        try connection.execute("""
            INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by)
            VALUES (\(entityType), \(id), \(old), \(new), \(user))
            """)
    }

    /// The first history row of the row a one-statement create inserted (`ResourceWriteSQL.insert`
    /// with `history:`): reads it from the `inserted` CTE, so it writes nothing when nothing was
    /// inserted.
    static func statusChangeOfInserted(entityType: String, new: String, by user: UUID) -> PostgresQuery {
        """
        INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by)
        SELECT \(entityType), inserted.id, NULL, \(new), \(user) FROM inserted
        """
    }

    static func decodeRow(_ row: PostgresRow) throws -> ResourceRow {
        ResourceRow(json: try row.decode("json"), version: try row.decode("version"))
    }
}
