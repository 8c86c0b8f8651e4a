import Glibc

/// The process's open-file limit (RLIMIT_NOFILE). Every connection, WebSocket subscriber and
/// parked long-poll request holds a descriptor, and the common default soft limit (1,024) is
/// far below what one server must hold (2,000 realtime subscribers, 10,000 long-poll waiters).
/// The soft limit is only a guard for programs that use `select()`, which this server does not
/// (epoll), so `serve` raises it to the hard limit at start, as Go's runtime does for every Go
/// program. Raising the hard limit needs privileges and stays the operator's call.
struct OpenFileLimit: Equatable, Sendable {
    var soft: UInt64
    var hard: UInt64

    /// The limits now, or nil if the kernel will not say.
    static func current() -> OpenFileLimit? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        return OpenFileLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// What raising did: the limits before and after, and the errno when the kernel refused.
    struct Outcome: Sendable {
        var before: OpenFileLimit
        var after: OpenFileLimit
        var failure: Int32?
    }

    /// Sets the soft limit to the hard one (on Linux the hard limit of this resource is always
    /// finite: at most `fs.nr_open`).
    static func raiseSoftToHard() -> Outcome? {
        guard let before = current() else { return nil }
        guard before.soft < before.hard else { return Outcome(before: before, after: before) }
        var limit = rlimit(rlim_cur: rlim_t(before.hard), rlim_max: rlim_t(before.hard))
        let failure: Int32? = setrlimit(resource, &limit) == 0 ? nil : errno
        return Outcome(before: before, after: current() ?? before, failure: failure)
    }

    /// Descriptors kept for everything but client connections when HTTP_MAX_CONNECTIONS is
    /// not set: the database pool and the LISTEN connection, outbound HTTP (push, webhooks,
    /// Slack), mail, backups and log files, epoll and wake-up descriptors.
    static let reservedForTheProcess: UInt64 = 1024

    /// The most connections held when HTTP_MAX_CONNECTIONS is not set, whatever the limit:
    /// container runtimes often grant a hard limit of 1,048,576, and each open connection
    /// costs ~5–7 KB of server memory plus the kernel's, so a flood is shed with a 503 at
    /// ~450 MB rather than when the host's memory runs out. Set the setting for more.
    static let defaultCeiling: UInt64 = 65536

    /// The default HTTP_MAX_CONNECTIONS: the soft limit (after `raiseSoftToHard`) less
    /// `reservedForTheProcess` (half the limit when it is small), at most `defaultCeiling`. A fixed number would be
    /// wrong both ways: above the limit, a connection past it fails in `accept` (EMFILE) and
    /// waits in the kernel's queue instead of getting its 503, or takes the descriptor a
    /// database connection or a backup needed; below it, it turns phones away (10,000
    /// phones plus their writers need more than 10,000) on a host that could hold them.
    var defaultMaxConnections: Int {
        Int(clamping: min(Self.defaultCeiling, max(1, soft - min(Self.reservedForTheProcess, soft / 2))))
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
