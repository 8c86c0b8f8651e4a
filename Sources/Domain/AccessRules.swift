import Foundation

/// contract §2 for listings, tasks and activities as pure functions over the parties of a row.
///
/// `Store/Visibility.swift` states the same rules as SQL predicates (which is what actually
/// filters queries); these are the readable, table-tested statement of intent, and the HTTP
/// authorization matrix checks that the two agree.
public enum AccessRules {
    /// The caller: its id and whether it is an admin (admins see and change everything).
    public struct Actor: Sendable, Hashable {
        public var userID: UUID
        public var isAdmin: Bool
        public init(userID: UUID, isAdmin: Bool) {
            self.userID = userID
            self.isAdmin = isAdmin
        }
    }

    public struct ListingParties: Sendable, Hashable {
        public var ownedBy: UUID
        public var assignedStaff: UUID?
        public init(ownedBy: UUID, assignedStaff: UUID?) {
            self.ownedBy = ownedBy
            self.assignedStaff = assignedStaff
        }
    }

    public struct WorkItemParties: Sendable, Hashable {
        public var declaredBy: UUID
        public var claimedBy: UUID?
        /// The parties of the item's listing, nil when it has none.
        public var listing: ListingParties?
        public init(declaredBy: UUID, claimedBy: UUID?, listing: ListingParties?) {
            self.declaredBy = declaredBy
            self.claimedBy = claimedBy
            self.listing = listing
        }
    }

    // MARK: Listings

    /// Owner, assigned staff, or declarer/claimer of a task or activity on the listing.
    public static func canSeeListing(_ actor: Actor, _ listing: ListingParties, hasOwnWorkItemOnIt: Bool) -> Bool {
        actor.isAdmin || canUpdateListing(actor, listing) || hasOwnWorkItemOnIt
    }

    /// Change the listing's fields: owner or assigned staff.
    public static func canUpdateListing(_ actor: Actor, _ listing: ListingParties) -> Bool {
        actor.isAdmin || listing.ownedBy == actor.userID || listing.assignedStaff == actor.userID
    }

    /// Delete the listing or change `owned_by` / `assigned_staff`: owner only.
    public static func canManageListing(_ actor: Actor, _ listing: ListingParties) -> Bool {
        actor.isAdmin || listing.ownedBy == actor.userID
    }

    // MARK: Tasks and activities

    /// Declarer, claimer, or owner/staff of its listing.
    public static func canSeeWorkItem(_ actor: Actor, _ item: WorkItemParties) -> Bool {
        actor.isAdmin || item.declaredBy == actor.userID || item.claimedBy == actor.userID
            || item.listing.map { $0.ownedBy == actor.userID || $0.assignedStaff == actor.userID } == true
    }

    /// Update fields: the same people who see it.
    public static func canUpdateWorkItem(_ actor: Actor, _ item: WorkItemParties) -> Bool {
        canSeeWorkItem(actor, item)
    }

    /// Delete: declarer or listing owner.
    public static func canDeleteWorkItem(_ actor: Actor, _ item: WorkItemParties) -> Bool {
        actor.isAdmin || item.declaredBy == actor.userID || item.listing?.ownedBy == actor.userID
    }

    /// Claim: anyone who sees it (whether it is free is the claim's own business, contract §3).
    public static func canClaimWorkItem(_ actor: Actor, _ item: WorkItemParties) -> Bool {
        canSeeWorkItem(actor, item)
    }

    /// Release: the claimer or an admin; releasing an unclaimed item is a harmless no-op.
    public static func canReleaseWorkItem(_ actor: Actor, _ item: WorkItemParties) -> Bool {
        guard canSeeWorkItem(actor, item) else { return false }
        return actor.isAdmin || item.claimedBy == nil || item.claimedBy == actor.userID
    }

    /// Create a work item: any signed-in user, on no listing or on a listing they can see.
    public static func canCreateWorkItem(onVisibleListing listingVisible: Bool?) -> Bool {
        listingVisible ?? true
    }
}
