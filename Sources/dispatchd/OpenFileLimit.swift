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

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
