import Domain
import Foundation
import Postgres

/// Whose visibility a predicate of `Visibility` tests, always a realtor (admins see
/// everything and get `TRUE` before a subject is needed).
///
/// Usually one caller, bound as a parameter. The shared delta read (SyncFeed+SharedDeltas)
/// tests many callers against many rows in one statement, with each caller's id in a column
/// of a row it pairs with the row under test; the rules stay written once, in `Visibility`,
/// and only what `me` stands for changes.
public enum VisibilitySubject: Sendable {
    /// One user's id, bound as a parameter.
    case user(UUID)
    /// A column (or other SQL expression) of type uuid: a fixed identifier from code, never input.
    case column(String)
}

extension PostgresQuery.StringInterpolation {
    /// The subject as SQL: a bound parameter or the column's text.
    mutating func appendInterpolation(_ subject: VisibilitySubject) {
        switch subject {
        case .user(let id): appendInterpolation(id)
        case .column(let column): appendInterpolation(unsafeSQL: column)
        }
    }
}

extension Visibility {
    /// `predicateForOneRow` for a realtor given as a subject: the same rules, for a statement
    /// that tests one (row, realtor) pair at a time.
    public static func predicateForOneRow(_ rule: VisibilityRule, alias: String, subject: VisibilitySubject) -> PostgresQuery {
        switch rule {
        case .activeUsers: "(\(unsafeSQL: alias).deactivated_at IS NULL)"
        case .listing: listing(alias, subject: subject)
        case .workItem: workItemRow(alias, subject: subject)
        case .child(let typeColumn, let idColumn):
            child(typeColumn: "\(alias).\(typeColumn)", idColumn: "\(alias).\(idColumn)", subject: subject)
        }
    }
}
