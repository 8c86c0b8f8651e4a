/// How urgent a task or activity is (contract §1).
public enum Priority: String, Sendable, CaseIterable {
    case low, medium, high, urgent
}
