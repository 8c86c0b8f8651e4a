/// A user's role (contract §1): admins see and change everything; realtors follow the visibility rules.
public enum UserType: String, Sendable, Codable, CaseIterable {
    case admin
    case realtor
}
