import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// HTTP conventions shared by the note and subtask routes: the caller as a `Viewer`, the list
/// cursor and the responses.
enum ChildHTTP {
    static func viewer(_ auth: AuthService, _ context: RequestContext) throws -> Viewer {
        let user = try auth.currentUser(context)
        return Viewer(userID: user.id, isAdmin: user.isAdmin)
    }

    /// The parameters of a per-parent list route (`/v1/{parent}s/{id}/notes|subtasks`).
    struct ListRequest {
        var parentID: UUID
        var limit: Int
        var includeDeleted: Bool
        var cursor: KeysetPosition?
    }

    static func listRequest(_ context: RequestContext, _ resource: Resource) throws -> ListRequest {
        ListRequest(parentID: try ResourceHTTP.uuid(context), limit: try ResourceHTTP.limit(context),
                    includeDeleted: try ResourceHTTP.flag(context, "include_deleted"), cursor: try cursor(context, resource))
    }

    /// `{"items": [...], "next_cursor": ...}`.
    static func page(_ page: ResourcePage, _ resource: Resource) -> HTTPResponse {
        ResourceHTTP.page(page.rows, nextCursor: page.next.map { KeysetCursor(orderText: order(resource), position: $0).encoded() })
    }

    static func created(_ result: CreateResult, collection: String) -> HTTPResponse {
        let location = "/v1/\(collection)/\(rowID(result.row))"
        return ResourceHTTP.row(result.row.json, version: result.row.version,
                                status: result.created ? .created : .ok, location: location)
    }

    static func row(_ row: ResourceRow) -> HTTPResponse {
        ResourceHTTP.row(row.json, version: row.version)
    }

    /// The id of a row, read back from its JSON (`dispatch_json` always starts with it).
    private static func rowID(_ row: ResourceRow) -> String {
        struct Identified: Decodable { var id: UUID }
        let id = try? JSONDecoder().decode(Identified.self, from: Data(row.json.utf8)).id
        return id?.uuidString.lowercased() ?? ""
    }

    // MARK: Cursor

    /// A child list's one order, as its cursors name it: notes by `created_at`, subtasks by
    /// `position` (each then by id).
    static func order(_ resource: Resource) -> String {
        resource == .subtasks ? "position.asc" : "created_at.asc"
    }

    /// The request's cursor, nil without one; malformed or made for another list → 400 `invalid_cursor`.
    /// Both kinds of key (`created_at` microseconds, positions) lie in the range of timestamps
    /// the API accepts, so a key outside it was forged.
    static func cursor(_ context: RequestContext, _ resource: Resource) throws -> KeysetPosition? {
        try KeysetCursor.position(context, orderText: order(resource), keyRange: Timestamp.microsecondRange,
                                  keyIsNullable: false, readsChildCursors: true)
    }
}
