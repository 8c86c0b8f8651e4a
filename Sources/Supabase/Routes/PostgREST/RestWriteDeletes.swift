import Domain
import Foundation
import HTTPServer
import JSON
import Resources
import Store

/// Deletes the way the app makes them: an upsert or PATCH of a listing, task or activity whose
/// `status` is `deleted` (reference 001, "Deleting Items": the app sets `status`, `deleted_at`
/// and `updated_at`, then syncs the row up with the same upsert it uses for every dirty row).
///
/// Such a write is `DELETE`'s operation (`ResourceWriter.delete`: the delete permission,
/// `deleted_at` stamped by the server, the `status_changes` row, sync delivery), made after the
/// record's other keys are applied as usual (claims included: `RestWriteClaims`). There is no
/// second copy of the delete rules. Decisions:
/// - A row already deleted takes none of the other keys (a tombstone does not change), so a
///   replayed delete only checks the permission and answers the row, as a repeated `DELETE` does.
/// - A new id is created from the record and then deleted: an item made and deleted offline
///   before its first sync arrives as a tombstone with its history, not as a refusal.
/// - Every step runs in the request's transaction: a caller who may not delete gets the 403
///   (`42501`) and nothing of the request is kept, bulk arrays included.
/// `deleted_at` in the record is server-managed and ignored either way; a live status on a
/// deleted row is a restore, decided by the stores (`StatusRules`).
struct RestWriteDeletes {
    let claims: RestWriteClaims

    private var writer: ResourceWriter { claims.writer }

    /// PATCH of the existing visible row `id`.
    func patch(id: UUID, _ record: [String: JSONValue]) throws -> ResourceRow {
        guard let fields = deletion(record) else { return try claims.patch(id: id, record) }
        if try status(id) != Self.deleted, RestWriteClaims.hasFields(fields) {
            _ = try claims.patch(id: id, fields)
        }
        return try writer.delete(id: id, check: .none)
    }

    /// A merge upsert of row `id` (`resolution=merge-duplicates`).
    func merge(id: UUID, _ record: [String: JSONValue]) throws -> CreateResult {
        guard let fields = deletion(record) else { return try claims.merge(id: id, record) }
        let created = try status(id) == Self.deleted ? false : try claims.merge(id: id, fields).created
        return CreateResult(row: try writer.delete(id: id, check: .none), created: created)
    }

    /// An insert of row `id`. `keepExisting` (`resolution=ignore-duplicates`): a row that
    /// already exists is left alone, not deleted.
    func insert(id: UUID, _ record: [String: JSONValue], keepExisting: Bool) throws -> CreateResult {
        guard let fields = deletion(record) else { return try claims.insert(id: id, record) }
        var result = try claims.insert(id: id, fields)
        if result.created || !keepExisting { result.row = try writer.delete(id: id, check: .none) }
        return result
    }

    // MARK: - Steps

    private static let deleted = "deleted"

    /// The record without `status` when it asks for the soft delete of a row with a status
    /// (listings, tasks, activities); nil for every other write.
    private func deletion(_ record: [String: JSONValue]) -> [String: JSONValue]? {
        guard writer.kind.hasStatus, case .string(Self.deleted)? = record["status"] else { return nil }
        var fields = record
        fields["status"] = nil
        return fields
    }

    /// The row's status as the caller sees it; nil when there is no visible row with the id.
    private func status(_ id: UUID) throws -> String? {
        try writer.current(id: id).flatMap { Self.text("status", in: $0.json) }
    }

    /// A string field of a row's JSON (`dispatch_json`).
    static func text(_ key: String, in json: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        return object[key] as? String
    }
}
