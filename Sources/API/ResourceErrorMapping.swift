import Domain
import Foundation
import HTTPServer

/// `ResourceError` → the contract §4 error answers (the one place the resource routes map errors).
enum ResourceErrorMapping {
    static func httpError(_ error: ResourceError, kind: String) -> HTTPError {
        switch error {
        case .notFound:
            return .notFound("No such \(kind).")
        case .forbidden(let message):
            return HTTPError(status: .forbidden, code: "forbidden", message: message)
        case .preconditionFailed(let version):
            return IfMatch.preconditionFailed(current: version)
        case .idConflict:
            return HTTPError(status: .conflict, code: "id_conflict", message: "This id is already in use.",
                             details: ["field": "id"], hint: "Use a new UUID, or PUT to replace a \(kind) you can see.")
        case .validation(let fields):
            return JSONRequestBody.validationFailed(fields)
        case .deleted:
            return HTTPError(status: .conflict, code: "row_deleted", message: "This \(kind) is deleted and can no longer change.")
        case .claimConflict(let holder, let since):
            return HTTPError(status: .conflict, code: "claim_conflict", message: "Someone else has claimed this \(kind).",
                             details: ["claimed_by": .string(holder.uuidString.lowercased()),
                                       "claimed_at": .string(Timestamp.format(since))],
                             hint: "Ask the claimer to release it, or an administrator.")
        case .notClaimable(let status):
            return HTTPError(status: .conflict, code: "not_claimable", message: "A \(status.rawValue) \(kind) cannot be claimed.",
                             details: ["status": .string(status.rawValue)])
        }
    }

    /// Runs `body`, turning a `ResourceError` into its HTTP answer.
    static func mapping<Result>(kind: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as ResourceError {
            throw httpError(error, kind: kind)
        }
    }
}
