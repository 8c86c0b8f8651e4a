import Foundation
import Logging
import Store
import Synchronization

/// The realtime sockets' side of the instance's change stream: the second subscriber of
/// ChangeFanout, beside the long-poll waiters, built the same way (SyncWaiters explains the
/// proof). Each subscribed channel is a *registration*: a user, a sync cursor and a sink.
///
/// For each change the fanout reads once (who may see what committed since its previous
/// read), the registrations whose user may care become due; this thread then reads each
/// due user's delta from its cursor — *one read per distinct (user, cursor)*, however many
/// sockets and channels share it — turns it into RealtimeChanges (rows leaving the view
/// included, as DELETEs), hands them to every sink of the group and moves their cursors on.
///
/// Armed before "Subscribed": `register` takes the cursor at the current snapshot *before*
/// the registration exists, so every commit after it is either in a change delivered after
/// the registration (its audience names the user) or in one delivered before. The second
/// case is exactly when the cursor does not cover the last delivered change's snapshot:
/// such a registration is *fresh* and is read at the next change whatever its audience, and
/// a change is requested at once.
final class RealtimeFeed: @unchecked Sendable {
    typealias Sink = @Sendable ([RealtimeChange]) -> Void

    private struct Registration {
        let viewer: Viewer
        var cursor: SyncCursor
        let sink: Sink
        var reading = false
    }

    let parallelReads: Int
    private let feed: SyncFeed
    private let requestChange: @Sendable () -> Void
    private let logger: Logger
    private let loop = BackgroundLoop(name: "realtime-feed")
    private var condition: NSCondition { loop.condition }
    // Guarded by `condition`'s lock.
    private var registrations: [UInt64: Registration] = [:]
    private var due: Set<UInt64> = []
    private var fresh: Set<UInt64> = []
    private var lastChange: SyncSnapshot?
    private var retryAt: ContinuousClock.Instant?
    private var readCount = 0
    private var nextID: UInt64 = 0

    init(feed: SyncFeed, parallelReads: Int = 4, logger: Logger, requestChange: @escaping @Sendable () -> Void) {
        self.feed = feed
        self.parallelReads = parallelReads
        self.logger = logger
        self.requestChange = requestChange
    }

    /// Delta reads done so far (one per distinct user and cursor per wake-up).
    var reads: Int { locked { readCount } }
    var count: Int { locked { registrations.count } }

    /// Arms a subscription: from the moment this returns, every change to rows `viewer` may
    /// see that commits later reaches `sink` (in commit-chain order, at least once).
    /// `cursor` starts from an older position instead of the current snapshot (a join that
    /// replayed up to it; tests): any snapshot taken before this call is a gap-free start.
    func register(_ viewer: Viewer, from cursor: SyncCursor? = nil, sink: @escaping Sink) throws -> UInt64 {
        let cursor = try cursor ?? feed.currentCursor()
        condition.lock()
        loop.startLocked { [self] in readDue() }
        let id = nextID
        nextID += 1
        registrations[id] = Registration(viewer: viewer, cursor: cursor, sink: sink)
        let covered = cursor.since.flatMap { since in lastChange.map { since.covers($0) } } ?? false
        if !covered { fresh.insert(id) }
        condition.unlock()
        if !covered { requestChange() }
        return id
    }

    func unregister(_ id: UInt64) {
        condition.lock()
        registrations[id] = nil
        due.remove(id)
        fresh.remove(id)
        condition.unlock()
    }

    /// A change from the fanout (nil: its read failed, anyone may have changes). Runs on the
    /// fanout thread: only picks who is due.
    func changed(_ change: ChangeFanout.Change?) {
        condition.lock()
        for (id, registration) in registrations {
            let viewer = registration.viewer
            let concerned = change.map { $0.everyone || viewer.isAdmin || $0.users.contains(viewer.userID) } ?? true
            if concerned || fresh.contains(id) {
                due.insert(id)
            } else if let change, !registration.reading, !due.contains(id) {
                registrations[id]?.cursor = Self.advanced(registration.cursor, past: change)
            }
        }
        fresh.removeAll()
        if let change { lastChange = change.snapshot }
        if !due.isEmpty { condition.signal() }
        condition.unlock()
    }

    /// A cursor moved to `change`'s snapshot when that is provably lossless: nothing between
    /// `base` and `snapshot` concerns the user (the caller checked the audience), the cursor
    /// already holds everything up to `base`, and `snapshot` holds everything the cursor does
    /// (so nothing comes twice). Idle channels of one user thus land on the same snapshot and
    /// share their next read, as long-poll waiters share theirs.
    static func advanced(_ cursor: SyncCursor, past change: ChangeFanout.Change) -> SyncCursor {
        guard cursor.position == nil, let since = cursor.since, let base = change.base,
              since.covers(base), change.snapshot.covers(since) else { return cursor }
        return SyncCursor(since: change.snapshot, horizon: cursor.horizon)
    }

    func stop() {
        loop.stop()
    }

    // MARK: The thread

    /// One turn of the loop (lock held; started by the first registration): wait for due
    /// registrations, or read them (without the lock).
    private func readDue() {
        let now = ContinuousClock.now
        let ready = due.filter { registrations[$0].map { !$0.reading } ?? false }
        if ready.isEmpty || retryAt.map({ $0 > now }) == true {
            let until = retryAt.map { max($0, now) } ?? now + .seconds(60)
            _ = condition.wait(until: Date().addingTimeInterval((until - now).timeInterval))
            if retryAt.map({ $0 <= ContinuousClock.now }) == true { retryAt = nil }
            return
        }
        // One read per distinct question: the same user (and role) at the same cursor.
        var groups: [String: [UInt64]] = [:]
        for id in ready {
            guard var registration = registrations[id] else { continue }
            registration.reading = true
            registrations[id] = registration
            let key = "\(registration.viewer.userID) \(registration.viewer.isAdmin) \(registration.cursor.encoded())"
            groups[key, default: []].append(id)
        }
        due.subtract(ready)
        let jobs = groups.values.compactMap { ids in
            registrations[ids[0]].map { (ids: ids, viewer: $0.viewer, cursor: $0.cursor) }
        }
        condition.unlock()
        read(jobs)
        condition.lock()
    }

    private func read(_ jobs: [(ids: [UInt64], viewer: Viewer, cursor: SyncCursor)]) {
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: min(parallelReads, jobs.count)) { _ in
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < jobs.count else { return }
                let job = jobs[index]
                let outcome = Result { try delta(for: job.viewer, from: job.cursor) }
                let sinks: [Sink] = locked {
                    readCount += 1
                    var sinks: [Sink] = []
                    for id in job.ids {
                        guard var registration = registrations[id] else { continue }
                        registration.reading = false
                        switch outcome {
                        case .success(let (_, cursor)):
                            registration.cursor = cursor
                            sinks.append(registration.sink)
                        case .failure:
                            // Read again once the database answers; the cursor has not moved.
                            due.insert(id)
                        }
                        registrations[id] = registration
                    }
                    if case .failure = outcome { retryAt = .now + .seconds(1) }
                    condition.signal()
                    return sinks
                }
                switch outcome {
                case .success(let (changes, _)) where !changes.isEmpty:
                    for sink in sinks { sink(changes) }
                case .success:
                    break
                case .failure(let error):
                    logger.warning("realtime delta read failed; retrying", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// The user's whole delta from `cursor` (every page of the chain) and the cursor after it.
    private func delta(for viewer: Viewer, from cursor: SyncCursor) throws -> ([RealtimeChange], SyncCursor) {
        var pages: [SyncPage] = []
        var position = cursor
        repeat {
            let page = try feed.page(viewer: viewer, cursor: position, limit: SyncFeed.maxLimit)
            pages.append(page)
            position = page.next
        } while pages.last?.hasMore == true
        return (RealtimeChange.changes(from: pages, now: Date()), position)
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
