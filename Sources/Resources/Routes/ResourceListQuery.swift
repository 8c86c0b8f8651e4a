import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// The query parameters of `GET /v1/{listings|tasks|activities}` (contract §5) → `ListFilter`.
package enum ResourceListQuery {
    /// `statuses` are the resource's status strings; `workItem` enables `claimed_by`/`listing_id`
    /// and the `due_date`/`priority` orders.
    package static func filter(_ context: RequestContext, statuses: [String], workItem: Bool, caller: UUID,
                       paging: ListPaging) throws -> ListFilter {
        var filter = ListFilter()
        filter.limit = try ResourceHTTP.limit(context)
        filter.maxBytes = paging.rowBytes
        filter.order = try order(context, workItem: workItem)
        filter.after = try KeysetCursor.position(context, order: filter.order)
        filter.updatedSince = try ResourceHTTP.timestamp(context, "updated_since")
        filter.includeDeleted = try ResourceHTTP.flag(context, "include_deleted")
        if let text = context.query["status"] {
            let values = text.split(separator: ",").map(String.init)
            guard !values.isEmpty, values.allSatisfy(statuses.contains) else {
                throw ResourceHTTP.invalidParameter("status", "Must be one or more (comma-separated) of: \(statuses.joined(separator: ", ")).")
            }
            filter.statuses = values
        }
        guard workItem else { return filter }
        switch context.query["claimed_by"] {
        case nil: break
        case "me"?: filter.claimedBy = .user(caller)
        case "none"?: filter.claimedBy = ListFilter.Claimer.none
        case let text?:
            guard let id = UUID(uuidString: text) else {
                throw ResourceHTTP.invalidParameter("claimed_by", "Must be a user id, me, or none.")
            }
            filter.claimedBy = .user(id)
        }
        if let text = context.query["listing_id"] {
            guard let id = UUID(uuidString: text) else { throw ResourceHTTP.invalidParameter("listing_id", "Must be a UUID.") }
            filter.listingID = id
        }
        return filter
    }

    /// `order=<field>[.asc|.desc]` (default `updated_at.asc`); listings have no `due_date` or
    /// `priority`. Anything else → 400 `invalid_parameter`.
    package static func order(_ context: RequestContext, workItem: Bool) throws -> ListOrder {
        guard let text = context.query["order"] else { return .updatedAscending }
        let fields: [ListOrder.Field] = workItem ? ListOrder.Field.allCases : [.updatedAt, .createdAt]
        guard let order = ListOrder(text: text), fields.contains(order.field) else {
            let names = fields.map(\.rawValue).joined(separator: ", ")
            throw ResourceHTTP.invalidParameter("order", "Must be one of \(names), optionally followed by .asc or .desc (like updated_at.desc).")
        }
        return order
    }

    /// The page as `{"items", "next_cursor"}`; the cursor remembers `order`.
    package static func response(_ page: ResourcePage, order: ListOrder = .updatedAscending) -> HTTPResponse {
        let cursor = page.next.map { KeysetCursor(order: order, position: $0).encoded() }
        return ResourceHTTP.page(page.rows, nextCursor: cursor)
    }
}
