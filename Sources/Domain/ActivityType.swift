/// What kind of activity it is (contract §1).
public enum ActivityType: String, Sendable, CaseIterable {
    case call, email, meeting
    case showProperty = "show_property"
    case followUp = "follow_up"
    case other
}
