import CLibPQ
import Logging

/// NOTIFY after commit instead of at commit (`Configuration.afterCommitChannels`, migrations/0026).
///
/// Why: PostgreSQL serialises the commits of all transactions that sent a NOTIFY on one
/// database-wide lock, held through the commit's WAL flush, so notifying writers lose group
/// commit (bench/write-ceiling, docs/explanations/decisions.md). A transaction that notifies
/// alone writes no WAL of its own and holds that lock only briefly.
///
/// How: the session sets `dispatch.notify_after_commit = on` (and `client_min_messages =
/// notice`, so it hears the answer). A trigger that would have notified raises instead a NOTICE
/// `notify after commit: <channel>`; the notice receiver records the channel. After every round
/// trip that leaves the session outside a transaction (an autocommit statement, COMMIT, a
/// script), the owed channels are notified in a transaction of their own, *before* the call
/// returns, so before anyone who called it can answer a client: a commit acknowledged by this
/// process has had its notification committed first (ChangeHistory's proof, point 2). A rolled
/// back transaction owes nothing (`rollbackQuietly`); a spurious wake-up would cost only a read.
extension PostgresConnection {
    static let afterCommitNoticePrefix = "notify after commit: "

    /// The session settings that ask triggers to leave the NOTIFY to this session.
    var afterCommitSettings: [(String, String)] {
        guard !configuration.afterCommitChannels.isEmpty else { return [] }
        return [("dispatch.notify_after_commit", "on"), ("client_min_messages", "notice")]
    }

    /// Runs one round trip, then sends what its commit owes. When the round trip failed, its
    /// error is what the caller sees; the owed NOTIFY is still attempted (a script may have
    /// committed a transaction before a later statement failed).
    func notifyingAfterCommit<Result>(_ body: () throws -> Result) throws -> Result {
        defer { sendOwedNotifications() }
        return try body()
    }

    /// The notice receiver's part: remember a channel this session must notify after commit.
    /// Only configured channels count: a notice text is not proof of anything else.
    func noticeReceived(_ result: OpaquePointer) {
        let field = Int32(bitPattern: CLibPQDiagMessagePrimary.rawValue)
        guard !configuration.afterCommitChannels.isEmpty, let message = PQresultErrorField(result, field) else { return }
        let text = String(cString: message)
        guard text.hasPrefix(Self.afterCommitNoticePrefix) else { return }
        let channel = String(text.dropFirst(Self.afterCommitNoticePrefix.count))
        if configuration.afterCommitChannels.contains(channel) { owedNotifications.insert(channel) }
    }

    /// Notifies every owed channel, each in its own implicit transaction, once no transaction
    /// is open (inside one, the commit is still to come). A failed NOTIFY never fails the
    /// caller: the write is committed, and answering otherwise would tell a client to retry a
    /// change that is in the database. It is logged and counted instead, and the fan-out's
    /// safety read (ChangeFanout, every few seconds) delivers the change without a wake-up.
    private func sendOwedNotifications() {
        guard !owedNotifications.isEmpty, transactionStatus == .idle else { return }
        let channels = owedNotifications.sorted()
        owedNotifications.removeAll()
        for channel in channels {
            do {
                try query("SELECT pg_notify(\(channel), '')")
            } catch {
                faultCounters?.recordAfterCommitNotifyFailure()
                Self.faultLogger.warning("after-commit wake-up failed; the committed change reaches listeners by the safety read",
                                         metadata: ["channel": "\(channel)", "error": "\(error)"])
            }
        }
    }

    static let faultLogger = Logger(label: "postgres.notify")
}
