import Domain
import Foundation
import HTTP1
import HTTPServer
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

    static func listRequest(_ context: RequestContext) throws -> ListRequest {
        ListRequest(parentID: try ResourceHTTP.uuid(context), limit: try ResourceHTTP.limit(context),
                    includeDeleted: try ResourceHTTP.flag(context, "include_deleted"), cursor: try cursor(context))
    }

    /// `{"items": [...], "next_cursor": ...}`.
    static func page(_ page: ResourcePage) -> HTTPResponse {
        ResourceHTTP.page(page.rows, nextCursor: page.next.map(encodeCursor))
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

    /// Opaque to clients: the last row's keyset as base64url JSON `{"key","id"}` (notes'
    /// keys are `created_at` microseconds, subtasks' positions; never null).
    struct Cursor: Codable, RangeChecked {
        var key: Int64
        var id: UUID

        /// Both kinds of key lie in the range of timestamps the API accepts, so a key
        /// outside it was forged.
        var isWithinRange: Bool { Timestamp.microsecondRange.contains(key) }
    }

    static func encodeCursor(_ position: KeysetPosition) -> String {
        OpaqueToken.encode(Cursor(key: position.key ?? 0, id: position.id))
    }

    /// The request's cursor, nil without one; malformed → 400 `invalid_cursor`.
    static func cursor(_ context: RequestContext) throws -> KeysetPosition? {
        guard let text = context.query["cursor"] else { return nil }
        guard text.count <= 512, let cursor = OpaqueToken.decode(Cursor.self, from: text)
        else {
            throw DomainError.badRequest(.invalidCursor, "The cursor is malformed; start again without it.")
        }
        return KeysetPosition(key: cursor.key, id: cursor.id)
    }
}
