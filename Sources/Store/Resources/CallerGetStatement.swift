import Domain
import Foundation
import Postgres

/// The statement of `ResourceStore.get(callerID:id:)` (`GET /v1/{r}/{id}`), its text built
/// once per resource: it depends only on the resource's description, while the caller and
/// the row are bound parameters. Rebuilding it per request (the row JSON's expression, the
/// visibility predicate spliced and renumbered) was ~47k of a get-one's ~241k instructions
/// (bench/callgrind), before the statement cache hashed the same text again.
enum CallerGetStatement {
    private static let templates: [Resource: PostgresQueryTemplate] = Dictionary(
        uniqueKeysWithValues: Resource.allCases.map { resource in
            (resource, PostgresQueryTemplate(arguments: 2) { build(resource, callerID: $0[0], id: $0[1]) })
        })

    /// The statement for `callerID` reading row `id` of `resource`; equal to `build`'s.
    static func query(_ resource: Resource, callerID: UUID, id: UUID) -> PostgresQuery {
        guard let template = templates[resource] else { return build(resource, callerID: callerID, id: id) }
        return template.query([callerID, id])
    }

    /// The users row, and through a lateral join the resource row under the same rule as
    /// `ResourceStore.getQuery` (admins see every row; a realtor's predicate is
    /// `Visibility.predicateForOneRow`), read only for an active caller. Its plan is tested
    /// (ListPlanTests).
    static func build(_ resource: Resource, callerID userID: UUID, id: UUID) -> PostgresQuery {
        let description = resource.description
        let visible = Visibility.predicateForOneRow(description.visibility, alias: "r", subject: .user(userID))
        return """
            SELECT u.user_type, u.deactivated_at IS NULL AS active, r.json, r.version
            FROM users u LEFT JOIN LATERAL (
                SELECT \(StoredRowJSON.text("r", table: description.table)) AS json, r.version FROM \(unsafeSQL: description.table) r
                WHERE r.id = \(id) AND (u.user_type = '\(unsafeSQL: UserType.admin.rawValue)' OR \(visible))
            ) r ON u.deactivated_at IS NULL
            WHERE u.id = \(userID)
            """
    }
}
