import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import Logging
import Postgres
import RouteKit
import Store

/// `POST /v1/sync/push` (contract §6): a client's offline queue in one request.
///
/// Each mutation calls the store operation its REST route calls, with the route's input
/// parser and error mapping (`PushMutation+Apply`), so push has exactly the validation,
/// visibility, permissions, claim rules and side effects of the REST API. Mutations run in
/// order, each in its own transaction; a failure is that mutation's result and never stops
/// the rest.
///
/// Exactly once: a mutation's transaction first takes its (caller, mutation_id) key in
/// `sync_mutations`, applies the op inside a savepoint (so a rejection is recorded too),
/// records the result and commits — effect and result together, so a crash at any instant
/// leaves both or neither, and a replay gets the recorded result or applies it then. A second
/// copy of the queue (a retry while the first still runs) waits on the key of the mutation the
/// first copy is applying, then reads its result: every copy walks the queue in order and gets
/// the same results. Waits are bounded by `lock_timeout`; past it the push answers 503.
///
/// Results: `applied` (the row as the route returns it), `conflict` (412 from a stale
/// `base_version`, or 409 `claim_conflict`: with the server's current row), `rejected`
/// (any other error, with the contract §4 error object).
enum SyncPushRoutes {
    /// Bounds the work one request can demand; a longer queue is sent in several pushes.
    static let maximumMutations = 500
    /// Results are kept this long; a client offline for longer re-sends mutations that are
    /// then applied again (safe for claims, deletes and versioned upserts).
    static let retentionDays = 30
    /// How long one mutation may wait for a lock: a concurrent copy's uncommitted mutation or a
    /// busy row. Past it the push answers 503 + Retry-After and the results so far stay recorded.
    static let lockTimeoutSeconds = 15

    static func register(on router: inout Router, auth: AuthService, log: MutationLog, devices: DeviceActivity) {
        router.post("/v1/sync/push") { request, context in
            let viewer = try auth.viewer(context)
            var body = try JSONRequestBody(request, allowed: ["mutations"], ignored: [])
            var mutations: [JSONValue] = []
            if case .array(let list)? = body.value("mutations") {
                mutations = list
            } else {
                body.add(FieldError(field: "mutations", code: body.contains("mutations") ? .invalidType : .required,
                                    message: "Must be an array of mutations."))
            }
            if mutations.count > maximumMutations {
                body.add(FieldError(field: "mutations", code: .tooMany,
                                    message: "At most \(maximumMutations) mutations per push; send the rest in another."))
            }
            try body.finish()
            let pusher = Pusher(pool: auth.pool, log: log, viewer: viewer, logger: context.logger)
            var results: [String] = []
            var tally = PushTally()
            for mutation in mutations {
                let (result, fresh) = try pusher.result(for: mutation)
                results.append(result)
                tally.count(fresh)
            }
            devices.pushed(try AuthService.principal(context), tally)
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
    let pool: PostgresPool
    let log: MutationLog
    let viewer: Viewer
    let logger: Logger

    /// The JSON result object for one entry. Throws when the database is unreachable or a lock
    /// wait timed out — then the whole push fails with 503 and the client retries it (replays
    /// are safe: every result so far is recorded).
    /// With the result, what this call decided (nil for a replay: its outcome was counted when
    /// it was first applied), for the device's sync health.
    func result(for value: JSONValue) throws -> (String, PushTally.Outcome?) {
        let (mutationID, parsed) = PushMutation.parse(value)
        let mutation: PushMutation
        switch parsed {
        case .failure(let error):
            return (Self.render(mutationID: mutationID, status: "rejected", error: Self.body(error)), .rejected)
        case .success(let valid):
            mutation = valid
        }
        // A deadlock or serialization failure rolled everything back, the key included: run
        // the whole transaction again.
        return try pool.withTransaction(maxAttempts: 3) { connection in
            try connection.execute("SET LOCAL lock_timeout = \(unsafeSQL: "'\(SyncPushRoutes.lockTimeoutSeconds)s'")")
            let claim = try log.claim(userID: viewer.userID, mutationID: mutation.mutationID, on: connection)
            if case .replay(let result) = claim { return (result, nil) }
            let (result, outcome) = try outcome(of: mutation, on: connection)
            try log.record(userID: viewer.userID, mutationID: mutation.mutationID, result: result, on: connection)
            return (result, outcome)
        }
    }

    /// Applies the mutation inside a savepoint: a failed op is rolled back alone, and its
    /// error still becomes the recorded result of this transaction.
    private func outcome(of mutation: PushMutation, on connection: PostgresConnection) throws -> (String, PushTally.Outcome) {
        let id = mutation.mutationID
        try connection.execute("SAVEPOINT push_mutation")
        let failure: DomainError
        do {
            let row = try mutation.apply(as: viewer, pool: pool, on: connection)
            try connection.execute("RELEASE SAVEPOINT push_mutation")
            return (Self.render(mutationID: id, status: "applied", record: Array(row.utf8)), .applied)
        } catch {
            let answer = try answer(for: error)
            try connection.execute("ROLLBACK TO SAVEPOINT push_mutation")
            failure = answer
        }
        if failure.isPushConflict {
            let current = try mutation.currentRow(as: viewer, pool: pool, on: connection)
            return (Self.render(mutationID: id, status: "conflict", record: current.map { Array($0.utf8) },
                                error: Self.body(failure)),
                    failure.code == .claimConflict ? .claimConflict : .conflict)
        }
        return (Self.render(mutationID: id, status: "rejected", error: Self.body(failure)), .rejected)
    }

    /// The domain error the REST API answers for `error`. Transient failures (outage, lock
    /// timeout, deadlock) are rethrown: they say nothing about the mutation, so they must
    /// never be recorded as its result.
    private func answer(for error: any Error) throws -> DomainError {
        let domain: DomainError
        switch error {
        case let known as DomainError: domain = known
        case let database as PostgresError: domain = DatabaseErrorMapping.domainError(for: database)
        default:
            logger.error("Unhandled error in pushed mutation", metadata: ["error": "\(String(reflecting: error))"])
            return .internalError
        }
        if domain.kind == .unavailable { throw error }
        return domain
    }

    /// The error object of a result: the contract's error body, as the REST route answers it.
    static func body(_ error: DomainError) -> [UInt8] {
        APIErrorRenderer.contract(error).response.body
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
