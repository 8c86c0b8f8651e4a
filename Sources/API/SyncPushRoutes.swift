import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// `POST /v1/sync/push` (SPEC 6): a client's offline queue in one request.
///
/// Each mutation is replayed through the resource routes themselves (`resources`, the router
/// holding every REST route), as the caller, so push has exactly the validation, visibility,
/// permissions, claim rules and side effects of the REST API — there is no second copy of
/// those rules to drift. Each mutation runs in its own transaction (the route's), in order;
/// a failure is that mutation's result and never stops the rest.
///
/// Results: `applied` (2xx: the row as the route returned it), `conflict` (412 from a stale
/// `base_version`, or 409 `claim_conflict`: with the server's current row), `rejected`
/// (any other error, with the SPEC 4 error object). Each result is recorded under
/// (caller, mutation_id) before it is sent, and a replay gets the recorded result without the
/// mutation being applied again (`MutationLog`).
enum SyncPushRoutes {
    /// Bounds the work one request can demand; a longer queue is sent in several pushes.
    static let maximumMutations = 500
    /// Results are kept this long; a client offline for longer re-sends mutations that are
    /// then applied again (safe for claims, deletes and versioned upserts).
    static let retentionDays = 30

    static func register(on router: inout Router, resources: Router, auth: AuthService, log: MutationLog) {
        router.post("/v1/sync/push") { request, context in
            let caller = try auth.currentUser(context)
            var body = try JSONRequestBody(request, allowed: ["mutations"], ignored: [])
            var mutations: [JSONValue] = []
            if case .array(let list)? = body.value("mutations") {
                mutations = list
            } else {
                body.add(FieldError(field: "mutations", code: body.contains("mutations") ? "invalid_type" : "required",
                                    message: "Must be an array of mutations."))
            }
            if mutations.count > maximumMutations {
                body.add(FieldError(field: "mutations", code: "too_many",
                                    message: "At most \(maximumMutations) mutations per push; send the rest in another."))
            }
            try body.finish()
            let pusher = Pusher(resources: resources, log: log, userID: caller.id, context: context)
            let results = try mutations.map(pusher.result(for:))
            // Pruning rides on pushes (about one in 256) instead of a scheduler: the index on
            // created_at makes it cheap, and a server with no pushes accumulates nothing.
            if UInt8.random(in: 0...255) == 0 { _ = try? log.prune(olderThanDays: retentionDays) }
            var output = Array("{\"results\":[".utf8)
            output.append(contentsOf: results.joined(separator: ",").utf8)
            output.append(contentsOf: "]}".utf8)
            return .response(HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: output))
        }
    }
}

/// Applies one push's mutations for one caller.
private struct Pusher {
    let resources: Router
    let log: MutationLog
    let userID: UUID
    let context: RequestContext

    /// The JSON result object for one entry. Throws only when the database is unreachable —
    /// then the whole push fails with 503 and the client retries it (replays are safe).
    func result(for value: JSONValue) throws -> String {
        let (mutationID, parsed) = PushMutation.parse(value)
        let mutation: PushMutation
        switch parsed {
        case .failure(let error):
            return Self.render(mutationID: mutationID, status: "rejected", error: error.response.body)
        case .success(let valid):
            mutation = valid
        }
        switch try log.reserve(userID: userID, mutationID: mutation.mutationID) {
        case .replay(let result):
            return result
        case .inProgress:
            let busy = HTTPError(status: .conflict, code: "mutation_in_progress",
                                 message: "This mutation is being applied by another request.",
                                 hint: "Push it again shortly; you will get its result.")
            return Self.render(mutationID: mutation.mutationID, status: "rejected", error: busy.response.body)
        case .reserved:
            break
        }
        let result: String
        do {
            result = try apply(mutation)
        } catch {
            try? log.release(userID: userID, mutationID: mutation.mutationID)
            throw error
        }
        try log.complete(userID: userID, mutationID: mutation.mutationID, result: result)
        return result
    }

    private func apply(_ mutation: PushMutation) throws -> String {
        var last = HTTPError.internalError.response
        for request in mutation.requests() {
            last = try perform(request)
            // Only the edit-else-create pair has a second request, taken when the row is missing.
            if last.status != .notFound { break }
        }
        let id = mutation.mutationID
        if (200..<300).contains(last.status.code) {
            return Self.render(mutationID: id, status: "applied", record: last.body)
        }
        if last.status == .preconditionFailed || (last.status == .conflict && Self.code(of: last) == "claim_conflict") {
            let current = try perform(mutation.currentRowRequest())
            return Self.render(mutationID: id, status: "conflict",
                               record: current.status == .ok ? current.body : nil, error: last.body)
        }
        return Self.render(mutationID: id, status: "rejected", error: last.body)
    }

    /// Runs one resource request as the caller and renders errors exactly as the API would.
    /// Database outages propagate (the push answers 503); everything else is a response.
    private func perform(_ request: HTTPRequest) throws -> HTTPResponse {
        var inner = context
        inner.query = QueryParameters(parsing: request.head.query)
        inner.storage = [:]
        do {
            switch try resources.respond(to: request, context: inner) {
            case .response(let response): return response
            case .deferred: return HTTPError.internalError.response
            }
        } catch {
            let mapped = DatabaseErrorMapping.map(error)
            if let httpError = mapped as? HTTPError {
                if httpError.status == .serviceUnavailable { throw httpError }
                return httpError.response
            }
            context.logger.error("Unhandled error in pushed mutation", metadata: ["error": "\(String(reflecting: error))"])
            return HTTPError.internalError.response
        }
    }

    private static func code(of response: HTTPResponse) -> String? {
        guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)),
              case .string(let code)? = fields["code"] else { return nil }
        return code
    }

    static func render(mutationID: UUID?, status: String, record: [UInt8]? = nil, error: [UInt8]? = nil) -> String {
        var out = "{\"mutation_id\":"
        out += mutationID.map { "\"\($0.uuidString.lowercased())\"" } ?? "null"
        out += ",\"status\":\"\(status)\""
        if let record { out += ",\"record\":" + String(decoding: record, as: UTF8.self) }
        if let error { out += ",\"error\":" + String(decoding: error, as: UTF8.self) }
        return out + "}"
    }
}
