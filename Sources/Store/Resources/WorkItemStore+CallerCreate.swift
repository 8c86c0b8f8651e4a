import Domain
import Foundation
import Postgres

/// `POST /v1/{tasks|activities}` for the caller `userID`, with the caller's account read in the
/// create's own statement (`ResourceWriteSQL.insert` with `caller:`): the listing check, the
/// row, its history row and the account are one round trip, where the account check before it
/// was a second (~60–80 µs of the server's and PostgreSQL's CPU per create).
extension WorkItemStore {
    /// Creates the item (`created: true`), or answers a replay of an earlier create with the
    /// same id and fields; `.callerInactive` (nothing written) when the account is gone or
    /// deactivated. Input the rules reject is answered after the account check, as before: an
    /// inactive caller gets 401, not the body's 422.
    public func create(callerID userID: UUID, id: UUID?, input: WorkItemInput) throws -> CallerWrite<CreateResult> {
        try pool.withConnection { connection in
            let sent = Result { try status(input, patch: false) }
            guard input.check(complete: true, currentClaimer: nil).isEmpty, case .success(let named) = sent else {
                guard let viewer = try CallerSQL.viewer(userID, on: connection) else { return .callerInactive }
                return .written(try create(viewer, id: id, input: input, on: connection))
            }
            let created = named ?? .open
            let server = [ServerValue(column: "declared_by", value: "\(userID)"),
                          ServerValue(column: "completed_at", value: StatusRules.hasCompletedAt(created) ? "now()" : "NULL::timestamptz")]
            // `ResourceSQL.usableListing` under the role read in the statement; `allowed` has a
            // row only for an active caller, and the insert reads `allowed`.
            let listing = input.sent["listing_id"]?.uuid.map {
                ResourceSQL.usableListing($0, visible: CallerSQL.sees(Visibility.listing("l", subject: .user(userID))))
            }
            let rows = try connection.query(ResourceWriteSQL.insert(
                resource.description, alias: "t", id: id, input: input, server: server,
                condition: listing ?? "TRUE",
                history: ResourceSQL.statusChangeOfInserted(entityType: kind.rawValue, new: created.rawValue, by: userID),
                caller: userID))
            guard let row = rows.first else { return .callerInactive }
            let viewer = try CallerSQL.viewer(userID, row)
            guard try row.decode("allowed", as: Bool.self) else { throw DomainError.validation([ResourceSQL.unknownListing]) }
            if let json = try row.decode("json", as: String?.self) {
                return .written(CreateResult(row: ResourceRow(json: json, version: try row.decode("version")), created: true))
            }
            return .written(try replayed(viewer, id: id, input: input, on: connection))
        }
    }
}
