import Domain
import Testing

/// The status transition table and its stamps (contract §1).
@Suite struct StatusRulesTests {
    @Test(arguments: WorkItemStatus.allCases, WorkItemStatus.allCases)
    func workItemTransitions(_ old: WorkItemStatus, _ new: WorkItemStatus) {
        #expect(StatusRules.update(from: old, to: new) == Self.expected(old == .deleted, new == .deleted))
    }

    @Test(arguments: ListingStatus.allCases, ListingStatus.allCases)
    func listingTransitions(_ old: ListingStatus, _ new: ListingStatus) {
        #expect(StatusRules.update(from: old, to: new) == Self.expected(old == .deleted, new == .deleted))
    }

    /// Deleted to deleted changes nothing, deleted to live is a restore, live to deleted is the
    /// delete operation's, live to live is allowed.
    static func expected(_ oldDeleted: Bool, _ newDeleted: Bool) -> StatusRules.Verdict {
        if oldDeleted { return newDeleted ? .rowDeleted : .restore }
        return newDeleted ? .useDelete : .allowed
    }

    @Test func completedAndOpenConvertBothWays() {
        #expect(StatusRules.update(from: .completed, to: .open) == .allowed)
        #expect(StatusRules.update(from: .open, to: .completed) == .allowed)
        #expect(StatusRules.hasCompletedAt(.completed))
        #expect(!StatusRules.hasCompletedAt(.inProgress))
    }

    @Test(arguments: [(ListingStatus.draft, nil), (.active, "activated_at"), (.pending, "pending_at"),
                      (.closed, "closed_at"), (.deleted, "deleted_at")] as [(ListingStatus, String?)])
    func enteringAListingStatusStampsItsColumn(_ status: ListingStatus, _ column: String?) {
        #expect(StatusRules.stampedColumn(enteringListingStatus: status) == column)
    }

    @Test func onlyOpenAndInProgressItemsAreClaimable() {
        #expect(WorkItemStatus.allCases.filter(\.isClaimable) == [.open, .inProgress])
    }

    @Test func enumStringsAreExactlyTheSpecs() {
        #expect(WorkItemStatus.allCases.map(\.rawValue) == ["open", "in_progress", "completed", "deleted"])
        #expect(ListingStatus.allCases.map(\.rawValue) == ["draft", "active", "pending", "closed", "deleted"])
        #expect(ActivityType.allCases.map(\.rawValue) == ["call", "email", "meeting", "show_property", "follow_up", "other"])
        #expect(Priority.allCases.map(\.rawValue) == ["low", "medium", "high", "urgent"])
        #expect(ListingType.allCases.map(\.rawValue) == ["sale", "rental"])
        #expect(CreatedVia.allCases.map(\.rawValue) == ["dispatch", "slack"])
    }
}
