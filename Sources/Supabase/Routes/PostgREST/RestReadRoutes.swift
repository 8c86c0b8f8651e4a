import Accounts
import Domain
import HTTP1
import HTTPServer
import Store

/// `GET` and `HEAD /rest/v1/<table>`: PostgREST reads of the eight synced tables for signed-in
/// users, with `/v1`'s visibility. A bounded read (`limit`/`Range` up to `bufferedRowLimit`
/// rows, or a single object) is answered whole; anything larger streams every row (chunked,
/// never capped) from a cursor.
enum RestReadRoutes {
    /// Reads of at most this many rows are built in memory (one statement, `Content-Length`).
    static let bufferedRowLimit = 1000
    static let jsonType = "application/json; charset=utf-8"
    static let objectType = "application/vnd.pgrst.object+json; charset=utf-8"

    static func register(on router: inout Router, auth: AuthService, store: RestReadStore, delta: RestDeltaWindow) {
        router.get("/rest/v1/{table}") { request, context in
            let name = try context.pathParameter("table")
            guard let resource = Resource(table: name) else { throw RestError.unknownTable(name) }
            let read = try RestReadRequest(resource: resource, query: context.query, headers: request.headers,
                                           isGet: request.method == .get, delta: delta)
            let viewer = try auth.viewer(context)
            if request.method == .head { return .response(try head(read, viewer, store)) }
            if read.single { return .response(try single(read, viewer, store)) }
            if let limit = read.query.limit, limit <= bufferedRowLimit {
                return .response(try page(read, viewer, store))
            }
            return .streamed(stream(read, viewer, store, context))
        }
    }

    private static func head(_ read: RestReadRequest, _ viewer: Viewer, _ store: RestReadStore) throws -> HTTPResponse {
        guard let mode = read.count else { return HTTPResponse(status: .ok, headers: ["Content-Type": jsonType]) }
        let total = try store.total(read.query, viewer, count: mode)
        return try ranged(HTTPResponse(headers: ["Content-Type": jsonType]), read, returned: returned(read, total), total: total)
    }

    private static func page(_ read: RestReadRequest, _ viewer: Viewer, _ store: RestReadStore) throws -> HTTPResponse {
        let (rows, total) = try store.page(read.query, viewer, count: read.count)
        return try ranged(HTTPResponse(headers: ["Content-Type": jsonType], body: RestWriteRoutes.jsonArray(rows)), read,
                          returned: rows.count, total: total)
    }

    /// One object, or 406 `PGRST116` with the number of rows in `details`.
    private static func single(_ read: RestReadRequest, _ viewer: Viewer, _ store: RestReadStore) throws -> HTTPResponse {
        var probe = read.query
        probe.limit = min(read.query.limit ?? 2, 2)
        let (rows, _) = try store.page(probe, viewer, count: nil)
        guard rows.count == 1 else {
            var count = rows.count
            if count > 1 { count = returned(read, try store.total(read.query, viewer, count: .exact)) }
            throw RestError.notSingular(count)
        }
        return HTTPResponse(headers: ["Content-Type": objectType], body: Array(rows[0].utf8))
    }

    /// Every row, streamed from a cursor: the head goes out once the query ran (so its errors
    /// are still statuses), then the array in pieces. A client that leaves cancels the stream,
    /// which rolls the read transaction back and frees the connection.
    private static func stream(_ read: RestReadRequest, _ viewer: Viewer, _ store: RestReadStore,
                               _ context: RequestContext) -> ResponseBodyStream {
        ResponseBodyStream { writer in
            do {
                var first = true
                try store.stream(read.query, viewer, count: read.count, start: { total in
                    let rows = total.map { returned(read, $0) }
                    writer.begin(try ranged(HTTPResponse(headers: ["Content-Type": jsonType]), read,
                                            returned: rows, total: total))
                    try writer.write([UInt8(ascii: "[")])
                }, batch: { rows in
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(rows.reduce(rows.count) { $0 + $1.utf8.count })
                    for row in rows {
                        if !first { bytes.append(UInt8(ascii: ",")) }
                        first = false
                        bytes.append(contentsOf: row.utf8)
                    }
                    try writer.write(bytes)
                })
                try writer.write([UInt8(ascii: "]")])
            } catch {
                guard !writer.hasStarted else { throw error }
                writer.respond(context.renderError(error))
            }
        }
    }

    /// Rows a range returns out of `total` matching rows.
    private static func returned(_ read: RestReadRequest, _ total: Int) -> Int {
        let available = max(0, total - read.query.offset)
        return read.query.limit.map { min($0, available) } ?? available
    }

    /// `Content-Range` and PostgREST's status rule: 206 when the total is known and the rows
    /// are fewer, 416 past the end. Without a count (or rows) nothing is known: no header.
    /// With a count, `Preference-Applied: count=…` says it was taken.
    private static func ranged(_ response: HTTPResponse, _ read: RestReadRequest, returned: Int?,
                               total: Int?) throws -> HTTPResponse {
        var response = response
        let lower = read.query.offset
        if let total, lower > total, !read.limitZero {
            var error = RestError.invalidRange("An offset of \(lower) was requested, but there are only \(total) rows.")
            error.extraHeaders.set(name: "Content-Range", value: "*/\(total)")
            throw error
        }
        guard let returned else { return response }
        RestPreferenceApplied(count: read.count).apply(to: &response)
        let upper = lower + returned - 1
        let range = (total != 0 && lower <= upper) ? "\(lower)-\(upper)" : "*"
        response.headers.set(name: "Content-Range", value: "\(range)/\(total.map(String.init) ?? "*")")
        if let total, returned < total { response.status = RestStatus.partialContent }
        return response
    }
}
