import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Logging
import RouteKit
import Store

/// `Idempotency-Key` on `/v1` writes: a retry of a request that succeeded gets the first
/// answer again (with `Idempotent-Replayed: true`) instead of running twice, for 24 hours.
/// Keys are scoped per caller and route (method and path), so two users, or one key on two
/// routes, never meet. The same key with a different request (query or body) is refused 422
/// `idempotency_key_reused`; while the first request runs, a duplicate gets 409
/// `idempotency_key_in_use` (retry it shortly for the first one's answer). Only successes are kept: an error gives the
/// key back, so the retry runs again (a refusal would be refused again; a failure may not be).
struct IdempotencyMiddleware: Middleware {
    static let header = "Idempotency-Key"
    static let replayedHeader = "Idempotent-Replayed"
    /// What the fingerprint's HMAC is keyed with: it only has to tell requests apart.
    private static let fingerprintKey = Array("idempotency-key-request".utf8)

    let store: IdempotencyKeyStore

    func handle(_ request: HTTPRequest, _ context: RequestContext,
                next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        guard let key = request.headers[Self.header], Self.isWrite(request.method), request.path.hasPrefix("/v1/"),
              let principal = context.principal as? Principal
        else { return try next(request, context) }
        guard Self.isValid(key) else {
            throw DomainError(.badRequest, .invalidIdempotencyKey,
                              "Idempotency-Key must be 1 to 255 visible ASCII characters.")
        }
        let route = "\(request.method.rawValue) \(request.path)"
        let fingerprint = HMACSHA256.hex(key: Self.fingerprintKey, "\(request.query ?? "")\n")
            + HMACSHA256.hex(key: Self.fingerprintKey, String(decoding: request.body, as: UTF8.self))
        switch try store.claim(caller: principal.userID, route: route, key: key, fingerprint: fingerprint) {
        case .replay(let answer):
            var headers = HTTPHeaders()
            for (name, value) in [("Content-Type", answer.contentType), ("Location", answer.location), ("ETag", answer.etag)] {
                if let value { headers.set(name: name, value: value) }
            }
            headers.set(name: Self.replayedHeader, value: "true")
            return .response(HTTPResponse(status: HTTPStatus(code: answer.status, reason: ""), headers: headers,
                                          body: Array(answer.body.utf8)))
        case .mismatch:
            throw DomainError(.invalidInput, .idempotencyKeyReused,
                              "This Idempotency-Key was used with a different request. Use a new key for a new request.")
        case .inProgress:
            throw DomainError(.conflict, .idempotencyKeyInUse,
                              "A request with this Idempotency-Key is still running. Retry shortly to get its answer.")
        case .execute:
            return try execute(request, context, key: key, route: route, caller: principal.userID, next: next)
        }
    }

    private func execute(_ request: HTTPRequest, _ context: RequestContext, key: String, route: String, caller: UUID,
                         next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        let reply: HandlerReply
        do {
            reply = try next(request, context)
        } catch {
            giveBack(key, route: route, caller: caller, context)
            throw error
        }
        // Kept as text: every /v1 answer is JSON; anything else is not kept (the retry runs again).
        guard case .response(let response) = reply, (200..<300).contains(response.status.code),
              let body = String(bytes: response.body, encoding: .utf8)
        else {
            giveBack(key, route: route, caller: caller, context)
            return reply
        }
        do {
            let answer = IdempotencyKeyStore.Answer(
                status: response.status.code, contentType: response.headers["Content-Type"], location: response.headers["Location"],
                etag: response.headers["ETag"], body: body)
            try store.complete(caller: caller, route: route, key: key, answer: answer)
        } catch {
            // The write is done and answered; a retry within two minutes gets 409, then runs again.
            context.logger.warning("cannot keep the answer of an Idempotency-Key", metadata: ["error": "\(error)"])
        }
        return reply
    }

    private func giveBack(_ key: String, route: String, caller: UUID, _ context: RequestContext) {
        do {
            try store.release(caller: caller, route: route, key: key)
        } catch {
            context.logger.warning("cannot release an Idempotency-Key", metadata: ["error": "\(error)"])
        }
    }

    static func isWrite(_ method: HTTPMethod) -> Bool {
        method == .post || method == .put || method == .patch || method == .delete
    }

    static func isValid(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
