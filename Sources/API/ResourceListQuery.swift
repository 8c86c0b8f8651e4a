import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// The query parameters of `GET /v1/{listings|tasks|activities}` (SPEC 5) → `ListFilter`.
enum ResourceListQuery {
    /// `statuses` are the resource's status strings; `workItem` enables `claimed_by`/`listing_id`.
    static func filter(_ context: RequestContext, statuses: [String], workItem: Bool, caller: UUID) throws -> ListFilter {
        var filter = ListFilter()
        filter.limit = try ResourceHTTP.limit(context)
        filter.after = try KeysetCursor.from(context).map { KeysetPosition(updatedAtMicros: $0.updatedAtMicros, id: $0.id) }
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

    /// The page as `{"items", "next_cursor"}`.
    static func response(_ page: ResourcePage) -> HTTPResponse {
        let cursor = page.next.map { KeysetCursor(updatedAtMicros: $0.updatedAtMicros, id: $0.id).encoded() }
        return ResourceHTTP.page(page.rows, nextCursor: cursor)
    }
}
