import Domain
import Foundation
import Testing

/// contract §2 for listings, tasks and activities as tables: relationship × permission.
@Suite struct AccessRulesTests {
    enum Relation: String, CaseIterable, CustomTestStringConvertible {
        case admin, owner, staff, declarer, claimer, stranger
        var testDescription: String { rawValue }
    }

    static let owner = UUID()
    static let staff = UUID()
    static let declarer = UUID()
    static let claimer = UUID()
    static let listing = AccessRules.ListingParties(ownedBy: owner, assignedStaff: staff)
    static let item = AccessRules.WorkItemParties(declaredBy: declarer, claimedBy: claimer, listing: listing)

    static func actor(_ relation: Relation) -> AccessRules.Actor {
        switch relation {
        case .admin: return .init(userID: UUID(), isAdmin: true)
        case .owner: return .init(userID: owner, isAdmin: false)
        case .staff: return .init(userID: staff, isAdmin: false)
        case .declarer: return .init(userID: declarer, isAdmin: false)
        case .claimer: return .init(userID: claimer, isAdmin: false)
        case .stranger: return .init(userID: UUID(), isAdmin: false)
        }
    }

    /// (relation, see listing, update listing, manage listing, see item, update item, delete item, release item)
    static let table: [(Relation, [Bool])] = [
        (.admin, [true, true, true, true, true, true, true]),
        (.owner, [true, true, true, true, true, true, false]),
        (.staff, [true, true, false, true, true, false, false]),
        (.declarer, [true, false, false, true, true, true, false]),
        (.claimer, [true, false, false, true, true, false, true]),
        (.stranger, [false, false, false, false, false, false, false]),
    ]

    @Test(arguments: table)
    func permissionsFollowTheRelationship(_ relation: Relation, _ expected: [Bool]) {
        let actor = Self.actor(relation)
        // Declarers and claimers see the listing through their item on it.
        let hasItem = relation == .declarer || relation == .claimer
        let actual = [
            AccessRules.canSeeListing(actor, Self.listing, hasOwnWorkItemOnIt: hasItem),
            AccessRules.canUpdateListing(actor, Self.listing),
            AccessRules.canManageListing(actor, Self.listing),
            AccessRules.canSeeWorkItem(actor, Self.item),
            AccessRules.canUpdateWorkItem(actor, Self.item),
            AccessRules.canDeleteWorkItem(actor, Self.item),
            AccessRules.canReleaseWorkItem(actor, Self.item),
        ]
        #expect(actual == expected)
    }

    @Test func itemWithoutListingIsVisibleToDeclarerAndClaimerOnly() {
        let item = AccessRules.WorkItemParties(declaredBy: Self.declarer, claimedBy: nil, listing: nil)
        #expect(AccessRules.canSeeWorkItem(Self.actor(.declarer), item))
        #expect(!AccessRules.canSeeWorkItem(Self.actor(.owner), item))
        #expect(AccessRules.canReleaseWorkItem(Self.actor(.declarer), item), "releasing an unclaimed item is a no-op")
        #expect(AccessRules.canClaimWorkItem(Self.actor(.declarer), item))
        #expect(!AccessRules.canClaimWorkItem(Self.actor(.stranger), item))
    }

    @Test func creatingAWorkItemNeedsAVisibleListingWhenOneIsNamed() {
        #expect(AccessRules.canCreateWorkItem(onVisibleListing: nil))
        #expect(AccessRules.canCreateWorkItem(onVisibleListing: true))
        #expect(!AccessRules.canCreateWorkItem(onVisibleListing: false))
    }
}
