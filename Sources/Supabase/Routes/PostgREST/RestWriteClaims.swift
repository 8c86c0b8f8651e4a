import Domain
import Foundation
import HTTPServer
import JSON
import Resources
import Store

/// Claims the way the app makes them: a write of `claimed_by` on a task or activity.
///
/// Setting it to the caller is `POST …/claim` and `null` is `DELETE …/claim` — the same store
/// operations (`ResourceWriter.claim`/`release`: atomic under any number of racing claimers,
/// 409 `claim_conflict` naming the holder, one `claim_events` row, a version bump). Sending the
/// value the row already holds changes nothing (an app echoing its copy back). Any other user
/// is refused with 403 `42501`: nobody claims for someone else. The other keys of the same body
/// are applied in the same transaction: a claim before them (so "claim and start" works), a
/// release after them (the releaser may no longer see the row afterwards).
struct RestWriteClaims {
    enum Intent: Equatable {
        case none, claim, release
        /// Another user's id: allowed only when it is already the holder.
        case keep(UUID)
    }

    let writer: ResourceWriter

    /// The claim `record` asks for, and the record without `claimed_by`. A value that is not a
    /// UUID stays in the record, for the input parser's 422.
    static func split(_ record: [String: JSONValue], caller: UUID) -> (Intent, [String: JSONValue]) {
        var rest = record
        switch record["claimed_by"] {
        case .null?:
            rest["claimed_by"] = nil
            return (.release, rest)
        case .string(let text)?:
            guard let id = UUID(uuidString: text) else { return (.none, record) }
            rest["claimed_by"] = nil
            return (id == caller ? .claim : .keep(id), rest)
        default:
            return (.none, record)
        }
    }

    /// PATCH of the existing visible row `id`.
    func patch(id: UUID, _ record: [String: JSONValue]) throws -> ResourceRow {
        let (intent, fields) = split(record)
        var row: ResourceRow?
        if intent == .claim { row = try writer.claim(id: id).row }
        if case .keep(let user) = intent { try requireHolder(user, id: id) }
        if Self.hasFields(fields) || (row == nil && intent != .release) {
            row = try writer.patch(id: id, record: fields, check: .none)
        }
        if intent == .release { row = try writer.release(id: id).row }
        guard let row else { throw DomainError.notFound(writer.kind.rawValue) }
        return row
    }

    /// A merge upsert of row `id`: the row merged, or created; claimed or released as asked.
    func merge(id: UUID, _ record: [String: JSONValue]) throws -> CreateResult {
        let (intent, fields) = split(record)
        switch intent {
        case .none:
            return try writer.merge(id: id, record: fields, check: .none)
        case .claim:
            guard try writer.current(id: id) != nil else {
                var result = try writer.merge(id: id, record: fields, check: .none)
                result.row = try writer.claim(id: id).row
                return result
            }
            var row = try writer.claim(id: id).row
            if Self.hasFields(fields) { row = try writer.merge(id: id, record: fields, check: .none).row }
            return CreateResult(row: row, created: false)
        case .release:
            var result = try writer.merge(id: id, record: fields, check: .none)
            result.row = try writer.release(id: id).row
            return result
        case .keep(let user):
            // A new row has no holder, so naming one can only be a claim for someone else.
            guard try writer.current(id: id) != nil else { throw Self.notYours }
            try requireHolder(user, id: id)
            return try writer.merge(id: id, record: fields, check: .none)
        }
    }

    /// An insert of row `id`: created, then claimed when asked (a new row has no claim to
    /// release, and no holder to name).
    func insert(id: UUID, _ record: [String: JSONValue]) throws -> CreateResult {
        let (intent, fields) = split(record)
        if case .keep = intent { throw Self.notYours }
        var result = try writer.insert(record: fields)
        if intent == .claim { result.row = try writer.claim(id: id).row }
        return result
    }

    // MARK: - Steps

    private func split(_ record: [String: JSONValue]) -> (Intent, [String: JSONValue]) {
        guard writer.kind.isClaimable else { return (.none, record) }
        return Self.split(record, caller: writer.viewer.userID)
    }

    /// `claimed_by` naming someone else is accepted only as the value the row already holds.
    private func requireHolder(_ user: UUID, id: UUID) throws {
        let holder = try writer.current(id: id).flatMap { Self.claimedBy(in: $0.json) }
        guard holder == user else { throw Self.notYours }
    }

    static let notYours = DomainError.forbidden("claimed_by can only be set to yourself (a claim) or to null (a release).")

    static func claimedBy(in json: String) -> UUID? {
        RestWriteDeletes.text("claimed_by", in: json).flatMap(UUID.init(uuidString:))
    }

    /// Whether a record carries anything besides the row's id.
    static func hasFields(_ record: [String: JSONValue]) -> Bool {
        record.keys.contains { $0 != "id" }
    }
}
