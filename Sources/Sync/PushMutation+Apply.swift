import Domain
import Foundation
import HTTPServer
import Postgres
import Resources
import Store

/// A push mutation as store operations (contract §6: "the same rules and side effects" as REST),
/// through the one `ResourceWriter` that `/rest/v1` writes use too, on the push's transaction:
/// - upsert of a listing/task/activity is `PUT` (create-or-replace);
/// - upsert of a note/subtask is `PATCH`, and `POST` with the client's id when it is missing;
/// - delete is `DELETE`, claim/release are `POST`/`DELETE …/claim`;
/// - `base_version` is `If-Match`, so a stale one is a 412 (→ conflict).
extension PushMutation {
    /// Applies the mutation as `viewer`; returns the row's JSON. Throws the `DomainError` the
    /// route would answer, or a `PostgresError` the caller maps.
    package func apply(as viewer: Viewer, pool: PostgresPool, on connection: PostgresConnection) throws -> String {
        let check: VersionCheck = baseVersion.map { .oneOf([$0]) } ?? .none
        let writer = ResourceWriter(kind: kind, viewer: viewer, pool: pool, connection: connection)
        switch operation {
        case .upsert: return try writer.replace(id: id, record: record, check: check).row.json
        case .delete: return try writer.delete(id: id, check: check).json
        case .claim: return try writer.claim(id: id).row.json
        case .release: return try writer.release(id: id).row.json
        }
    }

    /// The caller's view of the row now, for a conflict result; nil when it cannot see it.
    package func currentRow(as viewer: Viewer, pool: PostgresPool, on connection: PostgresConnection) throws -> String? {
        try ResourceWriter(kind: kind, viewer: viewer, pool: pool, connection: connection).current(id: id)?.json
    }
}
