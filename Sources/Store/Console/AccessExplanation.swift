import Foundation

/// Why a user does or does not see one listing, task or activity (the console's "Explain
/// access"): the verdict of the API's own predicate, the clause of contract §2 behind it, and
/// the history of that pair. Built by `AccessExplainer`.
public struct AccessExplanation: Sendable {
    /// The rows contract §2 explains (notes, subtasks and history follow their parent).
    public enum Entity: String, Sendable, CaseIterable {
        case listing, task, activity

        /// The table name; safe to splice (fixed list).
        public var table: String {
            switch self {
            case .listing: "listings"
            case .task: "tasks"
            case .activity: "activities"
            }
        }
    }

    /// One clause of the visibility rule and whether it holds for the pair.
    public struct Clause: Sendable, Equatable {
        public enum Kind: String, Sendable, CaseIterable {
            case admin, declarer, claimer
            case listingOwner = "listing_owner"
            case listingStaff = "listing_staff"
            /// Listings only: the user declared or claimed a task or activity on it.
            case viaWorkItem = "via_work_item"
        }

        public var kind: Kind
        public var holds: Bool
        /// For `viaWorkItem`: the work items that make it hold (at most a few, for the page).
        public var through: [WorkItemRef] = []
    }

    /// A task or activity named as the reason a listing is visible.
    public struct WorkItemRef: Sendable, Equatable {
        public var kind: String
        public var id: UUID
    }

    /// One past event of the pair: a recorded grant or revocation (`sync_access_changes`,
    /// written by the access triggers, pruned with the sync history) or a claim or release of
    /// the item by or for the user (`claim_events`, kept forever).
    public struct Event: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case granted, revoked, claimed, released
        }

        public var at: Date
        public var kind: Kind
        /// Who made a claim event happen (an admin releasing, the user claiming); nil for grants.
        public var actor: UUID?
        /// The entity the record names: the row itself, or (for a task's listing) its parent.
        public var entity: Entity
        public var entityID: UUID
    }

    public var entity: Entity
    public var id: UUID
    public var userID: UUID
    /// The user is an admin (sees everything) / is deactivated (the API refuses them outright).
    public var userIsAdmin: Bool
    public var userDeactivated: Bool
    /// The row's own state, for the page.
    public var rowDeleted: Bool
    /// What the API's one-row predicate (`Visibility.predicateForOneRow`) answers for the pair.
    public var predicateHolds: Bool
    public var clauses: [Clause]
    public var history: [Event]

    /// Whether the user sees the row through the API: the predicate, and an active account
    /// (a deactivated user's every request is refused, contract §2).
    public var sees: Bool { predicateHolds && !userDeactivated }

    /// The clauses that hold: the reasons the predicate is true (empty when it is false).
    public var reasons: [Clause] { clauses.filter(\.holds) }
}
