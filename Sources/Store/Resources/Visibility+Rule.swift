import Domain
import Postgres

extension Visibility {
    /// The predicate of a resource's visibility rule (`ResourceDescription.visibility`) for the
    /// row aliased `alias`: the one entry point for code that works from a description (the
    /// `/rest/v1` surface, the resource pipeline), so the rules stay written once, above.
    public static func predicate(_ rule: VisibilityRule, alias: String, _ viewer: Viewer) -> PostgresQuery {
        switch rule {
        case .activeUsers: viewer.isAdmin ? "TRUE" : "(\(unsafeSQL: alias).deactivated_at IS NULL)"
        case .listing: listing(alias, viewer)
        case .workItem: workItem(alias, viewer)
        case .child(let typeColumn, let idColumn):
            child(typeColumn: "\(alias).\(typeColumn)", idColumn: "\(alias).\(idColumn)", viewer)
        }
    }

    /// `predicate` for a statement that tests one row by its key (GET by id): work items
    /// probe their listing by primary key instead of collecting every listing the caller
    /// sees (`workItemRow`); the other rules are already written for one row.
    public static func predicateForOneRow(_ rule: VisibilityRule, alias: String, _ viewer: Viewer) -> PostgresQuery {
        if case .workItem = rule { return workItemRow(alias, viewer) }
        return predicate(rule, alias: alias, viewer)
    }
}
