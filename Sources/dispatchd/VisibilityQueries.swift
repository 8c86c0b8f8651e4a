import Foundation
import Postgres
import Store

/// The visibility-filtered reads of the API, built from `Store.Visibility` exactly as the
/// stores splice it (same predicates, same statement shape, ordering and page size), for
/// `explain-queries`. The list statement restates `ResourceSQL.page` (internal to Store);
/// bench/resources checks the real one from the server's statement log.
enum VisibilityQueries {
    struct Query {
        let name: String
        let query: PostgresQuery
    }

    /// Ids the parameterised queries need: a visible task and listing of the viewer.
    struct Samples {
        let taskID: UUID?
        let listingID: UUID?
    }

    static let pageSize = 51  // limit=50 plus one row to know whether there is a next page

    static func all(_ viewer: Viewer, samples: Samples) -> [Query] {
        var queries: [Query] = []
        for kind in WorkItemKind.allCases {
            let table = kind.table
            queries.append(Query(name: "GET /v1/\(table)?limit=50",
                                 query: keysFirstPage(table, "t", Visibility.workItemScan("t", viewer))))
            queries.append(Query(name: "GET /v1/\(table)?claimed_by=me",
                                 query: keysFirstPage(table, "t", Visibility.workItemScan("t", viewer), "t.claimed_by = \(viewer.userID)")))
        }
        queries.append(Query(name: "GET /v1/tasks?updated_since=<7 days ago>",
                             query: keysFirstPage("tasks", "t", Visibility.workItemScan("t", viewer),
                                                    "t.updated_at > now() - interval '7 days'")))
        queries.append(Query(name: "GET /v1/listings?limit=50", query: page("listings", "l", Visibility.listing("l", viewer))))
        if let task = samples.taskID {
            queries.append(Query(name: "GET /v1/tasks/{id}", query: """
                SELECT dispatch_json(w) AS row FROM tasks w WHERE w.id = \(task) AND \(Visibility.workItemRow("w", viewer))
                """))
            queries.append(Query(name: "GET /v1/tasks/{id}/notes", query: """
                SELECT dispatch_json(n) AS row FROM notes n
                WHERE n.parent_type = 'task' AND n.parent_id = \(task) AND n.deleted_at IS NULL
                  AND \(Visibility.child(typeColumn: "n.parent_type", idColumn: "n.parent_id", viewer))
                ORDER BY n.created_at, n.id LIMIT \(pageSize)
                """))
            queries.append(Query(name: "GET /v1/tasks/{id}/claim-events", query: """
                SELECT dispatch_json(e) AS row FROM claim_events e
                WHERE e.entity_type = 'task' AND e.entity_id = \(task)
                  AND \(Visibility.child(typeColumn: "e.entity_type", idColumn: "e.entity_id", viewer))
                ORDER BY e.created_at, e.id LIMIT \(pageSize)
                """))
        }
        if let listing = samples.listingID {
            queries.append(Query(name: "GET /v1/listings/{id}", query: """
                SELECT dispatch_json(l) AS row FROM listings l WHERE l.id = \(listing) AND \(Visibility.listing("l", viewer))
                """))
        }
        // The sync feed's first page for a new device: every visible row of a table.
        queries.append(Query(name: "sync: notes since the beginning (first page)", query: """
            SELECT dispatch_json(n) AS row FROM notes n
            WHERE n.txid >= '0'::xid8 AND \(Visibility.child(typeColumn: "n.parent_type", idColumn: "n.parent_id", viewer))
            ORDER BY n.txid, n.id LIMIT 500
            """))
        return queries
    }

    /// The statement of `ResourceSQL.page` (Store, internal): the list routes' first page.
    static func page(_ table: String, _ alias: String, _ visibility: PostgresQuery, _ extra: PostgresQuery? = nil) -> PostgresQuery {
        var conditions = visibility
        if let extra { conditions = "\(conditions) AND \(extra)" }
        return """
            SELECT dispatch_json(\(unsafeSQL: alias))::text AS json, \(unsafeSQL: alias).id,
                   (extract(epoch FROM \(unsafeSQL: alias).updated_at) * 1000000)::int8 AS micros
            FROM \(unsafeSQL: table) \(unsafeSQL: alias)
            WHERE \(conditions) AND \(unsafeSQL: alias).deleted_at IS NULL
            ORDER BY \(unsafeSQL: alias).updated_at, \(unsafeSQL: alias).id
            LIMIT \(pageSize)
            """
    }

    /// `page` as work items' `updated_at` lists run it (`ResourceSQL.pageQuery`, `keysFirst`):
    /// the keys from the index, then the kept rows by primary key for their JSON.
    static func keysFirstPage(_ table: String, _ alias: String, _ visibility: PostgresQuery, _ extra: PostgresQuery? = nil) -> PostgresQuery {
        var conditions = visibility
        if let extra { conditions = "\(conditions) AND \(extra)" }
        return """
            SELECT dispatch_json(page_row)::text AS json, page_row.id, page_keys.micros
            FROM (SELECT \(unsafeSQL: alias).id,
                         (extract(epoch FROM \(unsafeSQL: alias).updated_at) * 1000000)::int8 AS micros
                  FROM \(unsafeSQL: table) \(unsafeSQL: alias)
                  WHERE \(conditions) AND \(unsafeSQL: alias).deleted_at IS NULL
                  ORDER BY \(unsafeSQL: alias).updated_at, \(unsafeSQL: alias).id
                  LIMIT \(pageSize)) page_keys
            JOIN \(unsafeSQL: table) page_row ON page_row.id = page_keys.id
            """
    }

    /// A task and a listing the viewer sees (declared or owned, so visible by any rule).
    static func samples(_ connection: PostgresConnection, _ viewer: Viewer) throws -> Samples {
        let task = try connection.query("""
            SELECT w.id FROM tasks w WHERE \(Visibility.workItem("w", viewer)) ORDER BY w.id LIMIT 1
            """).first.map { try $0.decode("id", as: UUID.self) }
        let listing = try connection.query("""
            SELECT l.id FROM listings l WHERE \(Visibility.listing("l", viewer)) ORDER BY l.id LIMIT 1
            """).first.map { try $0.decode("id", as: UUID.self) }
        return Samples(taskID: task, listingID: listing)
    }
}
