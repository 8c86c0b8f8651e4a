import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import Postgres
import Resources
import Store

/// `POST`, `PATCH` and `DELETE /rest/v1/<table>`: PostgREST's write protocol as a third way into
/// the same operations as `/v1` and the sync push. Every row goes through `ResourceWriter`
/// (the store operations, with `/v1`'s parsers, rules and side effects), and the whole request
/// is one transaction: a bulk write is all or nothing, as in PostgREST.
///
/// - POST inserts one object or an array (`columns=`); `Prefer: resolution=merge-duplicates`
///   upserts on `id` (a merge: only the keys sent change, and a replay changes nothing),
///   `ignore-duplicates` leaves existing ids alone.
/// - PATCH and DELETE apply to the visible rows the filters match, locked in id order; a
///   matching row the caller may not change refuses the whole request (403 `42501`). Delete is
///   the soft delete. A request without any filter is refused (400 `21000`, Supabase's
///   `safeupdate`).
/// - `claimed_by` in a task or activity body is a claim or a release (`RestWriteClaims`), and
///   `status: deleted` in a listing, task or activity body is the soft delete (`RestWriteDeletes`).
/// - `Prefer: return=representation` answers the rows (`select=` columns; one bare object with
///   the `vnd.pgrst.object+json` Accept, else 406 and nothing written); the default is no body.
///   `Prefer: count=…` puts the number written in `Content-Range` (`RestWriteResponse`).
enum RestWriteRoutes {
    static func register(on router: inout Router, auth: AuthService) {
        router.post("/rest/v1/{table}") { request, context in try handle(request, context, auth) }
        router.patch("/rest/v1/{table}") { request, context in try handle(request, context, auth) }
        router.delete("/rest/v1/{table}") { request, context in try handle(request, context, auth) }
    }

    private static func handle(_ request: HTTPRequest, _ context: RequestContext, _ auth: AuthService) throws -> HandlerReply {
        let name = try context.pathParameter("table")
        guard let resource = Resource(table: name) else { throw RestError.unknownTable(name) }
        let viewer = try auth.viewer(context)
        let write = try RestWriteRequest(resource: resource, request: request, query: context.query)
        if resource == .users {
            return .response(try RestWriteUsers(auth: auth, viewer: viewer).respond(request.method, write))
        }
        guard let kind = ResourceWriter.Kind(resource) else {
            throw RestWriteErrors.notAllowed("\(name) is written by the server only",
                                             hint: "Claims and status changes record themselves when tasks, activities and listings change.")
        }
        let rows = try auth.pool.withTransaction(maxAttempts: 3) { connection in
            let writer = ResourceWriter(kind: kind, viewer: viewer, pool: auth.pool, connection: connection)
            let rows = try apply(request.method, write, RestWriteDeletes(claims: RestWriteClaims(writer: writer)), connection)
            return try representation(rows, write, connection)
        }
        return .response(RestWriteResponse.make(request.method, write, rows: rows))
    }

    /// The rows the request wrote, in order (JSON texts as the stores return them).
    private static func apply(_ method: HTTPMethod, _ write: RestWriteRequest, _ rows: RestWriteDeletes,
                              _ connection: PostgresConnection) throws -> [String] {
        let writer = rows.claims.writer
        switch method {
        case .post:
            return try write.records.compactMap { try insert($0, write.preferences.resolution, rows)?.json }
        case .patch:
            guard !write.query.conditions.isEmpty else { throw RestWriteErrors.missingFilter("UPDATE") }
            let record = write.records.first ?? [:]
            return try RestWriteSQL.lockMatching(write.query, writer.viewer, on: connection).map {
                try rows.patch(id: $0, record).json
            }
        default:
            guard !write.query.conditions.isEmpty else { throw RestWriteErrors.missingFilter("DELETE") }
            return try RestWriteSQL.lockMatching(write.query, writer.viewer, on: connection).map {
                try writer.delete(id: $0, check: .none).json
            }
        }
    }

    /// One POSTed row; nil when `ignore-duplicates` skipped it. A row without an id gets one
    /// here (as `POST /v1/…` does), so a claim in the same body can name it.
    private static func insert(_ record: [String: JSONValue], _ resolution: RestWritePreferences.Resolution?,
                               _ rows: RestWriteDeletes) throws -> ResourceRow? {
        var record = record
        let id: UUID
        switch record["id"] {
        case .string(let text)?:
            // A malformed id reaches the input parser, whose 422 names it.
            guard let parsed = UUID(uuidString: text) else { return try rows.claims.writer.insert(record: record).row }
            id = parsed
        case nil, .null?:
            id = UUID()
            record["id"] = .string(id.uuidString.lowercased())
        default:
            return try rows.claims.writer.insert(record: record).row
        }
        switch resolution {
        case .merge?:
            return try rows.merge(id: id, record).row
        case .ignore?:
            do {
                let result = try rows.insert(id: id, record, keepExisting: true)
                return result.created ? result.row : nil
            } catch let error as DomainError where error.code == .idConflict {
                return nil
            }
        case nil:
            return try rows.insert(id: id, record, keepExisting: false).row
        }
    }

    /// The answer's rows: `select=` columns, and the single-object rule checked while the
    /// transaction can still be rolled back (PostgREST writes nothing when it answers 406).
    private static func representation(_ rows: [String], _ write: RestWriteRequest,
                                       _ connection: PostgresConnection) throws -> [String] {
        if write.single, write.preferences.returning == .representation, rows.count != 1 {
            throw RestError.notSingular(rows.count)
        }
        guard write.preferences.returning == .representation, let columns = write.query.columns else { return rows }
        return try RestWriteSQL.project(rows, columns: columns, on: connection)
    }

    static func jsonArray(_ rows: [String]) -> [UInt8] {
        var body: [UInt8] = [UInt8(ascii: "[")]
        body.reserveCapacity(rows.reduce(2) { $0 + $1.utf8.count + 1 })
        for (index, row) in rows.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: row.utf8)
        }
        body.append(UInt8(ascii: "]"))
        return body
    }
}
