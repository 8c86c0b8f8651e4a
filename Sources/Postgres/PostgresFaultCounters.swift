import Synchronization

/// Faults a pool's connections met, for `/metrics`: what an operator should see even when no
/// caller failed because of it.
public final class PostgresFaultCounters: Sendable {
    private let notifyFailures = Atomic<Int>(0)
    private let unanswered = Atomic<Int>(0)

    public init() {}

    /// After-commit wake-ups (`+AfterCommitNotify.swift`) that failed; the write had committed
    /// and was answered as such, and the fan-out's safety read delivered it instead.
    public var afterCommitNotifyFailures: Int { notifyFailures.load(ordering: .relaxed) }

    /// Statements given up because the database sent no answer within the answer deadline
    /// (`+AnswerDeadline.swift`); each cost its connection.
    public var unansweredStatements: Int { unanswered.load(ordering: .relaxed) }

    func recordAfterCommitNotifyFailure() { notifyFailures.add(1, ordering: .relaxed) }
    func recordUnansweredStatement() { unanswered.add(1, ordering: .relaxed) }
}
