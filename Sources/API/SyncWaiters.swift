import Foundation
import HTTP1
import HTTPServer
import Store
import Synchronization

/// Parked long-poll requests of one server instance and the single thread that serves them.
///
/// Waiting costs a dictionary entry: no thread, no database connection. One thread (this
/// one) handles every deadline and every wake-up: when a notification arrives it waits
/// `coalescing` for the burst to settle, asks the database who may care about what committed
/// since the previous wake-up (`audience`, one query for all waiters), then re-reads the pages
/// of those waiters only (a few in parallel, each holding a pooled connection only for its
/// query) and answers the ones that now have something. Deadlines answer with whatever the
/// page then holds, usually an empty page with a fresh `next_since`.
///
/// Why no commit is overlooked: wake-up k covers what committed after wake-up k-1's audience
/// snapshot. A waiter parked since then is *fresh*: its page is re-read at its first wake-up
/// regardless of the audience, after that wake-up's snapshot was taken, so together they cover
/// everything after the request's first read. A change committing between that first read
/// and the parking finds no waiter when its notification arrives; `generation` counts
/// notifications, and a waiter parked with a stale generation triggers a wake-up at once.
/// Should any of this fail (the audience query errs), everyone is re-checked; at worst a
/// waiter answers at its deadline — its page read then is complete either way.
final class SyncWaiters: @unchecked Sendable {
    /// A parked request. `check` reads the page; nil means "nothing yet" (keep waiting) unless
    /// `final` is set (the deadline passed: answer whatever).
    struct Waiter: Sendable {
        let userID: UUID
        let isAdmin: Bool
        let deadline: ContinuousClock.Instant
        let completion: ResponseCompletion
        let check: @Sendable (_ final: Bool) -> HTTPResponse?
    }

    typealias AudienceProvider = @Sendable (SyncSnapshot?) throws -> SyncFeed.Audience

    let coalescing: Duration
    let parallelChecks: Int
    private let audience: AudienceProvider
    // Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var waiters: [UInt64: Waiter] = [:]
    /// Parked since the last wake-up's candidate selection: re-read regardless of audience.
    private var fresh: Set<UInt64> = []
    /// The previous wake-up's audience snapshot (read only on the waiters' thread).
    private var audienceSnapshot: SyncSnapshot?
    private var checkCount = 0
    private var nextID: UInt64 = 0
    private var generationCount: UInt64 = 0
    private var wakeAt: ContinuousClock.Instant?
    private var started = false
    private var stopped = false
    private var finished = false

    init(coalescing: Duration = .milliseconds(25), parallelChecks: Int = 4, audience: @escaping AudienceProvider) {
        self.coalescing = coalescing
        self.parallelChecks = parallelChecks
        self.audience = audience
    }

    var count: Int { locked { waiters.count } }
    /// Page re-reads done for parked requests (`sync_waiter_checks_total`).
    var checks: Int { locked { checkCount } }
    var generation: UInt64 { locked { generationCount } }

    /// A change committed somewhere (or notifications may have been lost): re-check everyone soon.
    func notifyChange() {
        condition.lock()
        generationCount &+= 1
        if wakeAt == nil { wakeAt = .now + coalescing }
        condition.signal()
        condition.unlock()
    }

    /// Parks a request; `generation` is the value read before its first page.
    func park(_ waiter: Waiter, generation: UInt64) {
        condition.lock()
        startIfNeeded()
        let id = nextID
        nextID += 1
        waiters[id] = waiter
        fresh.insert(id)
        if generation != generationCount && wakeAt == nil { wakeAt = .now }
        condition.signal()
        condition.unlock()
        // Runs on the event loop when the client leaves: only a dictionary removal.
        waiter.completion.onCancel { [weak self] in
            guard let self else { return }
            self.condition.lock()
            self.waiters[id] = nil
            self.fresh.remove(id)
            self.condition.unlock()
        }
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while started && !finished { condition.wait() }
        let leftovers = waiters
        waiters = [:]
        condition.unlock()
        for waiter in leftovers.values {
            waiter.completion.complete(with: HTTPError(status: .serviceUnavailable, code: "shutting_down",
                                                       message: "The server is shutting down; retry shortly.").response)
        }
    }

    // MARK: The thread

    /// Called with the lock held.
    private func startIfNeeded() {
        guard !started, !stopped else { return }
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "sync-waiters"
        thread.start()
    }

    private func run() {
        condition.lock()
        while !stopped {
            let now = ContinuousClock.now
            let expired = waiters.filter { $0.value.deadline <= now }
            let wake = wakeAt.map { $0 <= now } ?? false
            if expired.isEmpty && !wake {
                let nextDeadline = waiters.values.map(\.deadline).min()
                let until = [nextDeadline, wakeAt, now + .seconds(60)].compactMap { $0 }.min() ?? now + .seconds(60)
                _ = condition.wait(until: Date().addingTimeInterval((until - now).timeInterval))
                continue
            }
            for id in expired.keys {
                waiters[id] = nil
                fresh.remove(id)
            }
            if wake { wakeAt = nil }
            condition.unlock()
            serve(expired.map { ($0.key, $0.value) }, final: true)
            if wake { serve(selectCandidates(), final: false) }
            condition.lock()
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Reads the audience (outside the lock: it is a query), then picks the fresh waiters and
    /// those the audience may concern.
    private func selectCandidates() -> [(UInt64, Waiter)] {
        let current = try? audience(audienceSnapshot)
        audienceSnapshot = current?.snapshot
        return locked {
            let picked = waiters.filter { id, waiter in
                guard let current, !current.everyone, !waiter.isAdmin, !fresh.contains(id) else { return true }
                return current.users.contains(waiter.userID)
            }
            fresh.removeAll()
            return Array(picked)
        }
    }

    /// Checks waiters, a few at a time (each check holds one pooled connection while it reads).
    private func serve(_ batch: [(UInt64, Waiter)], final: Bool) {
        guard !batch.isEmpty else { return }
        let cursor = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: min(parallelChecks, batch.count)) { _ in
            while true {
                let current = cursor.withLock { index in
                    defer { index += 1 }
                    return index
                }
                guard current < batch.count else { return }
                let (id, waiter) = batch[current]
                if waiter.completion.isCancelled { continue }
                let response = waiter.check(final)
                locked { checkCount += 1 }
                guard let response else { continue }
                // Answer only if still parked (not cancelled, not already answered).
                let stillParked = final || locked { waiters.removeValue(forKey: id) != nil }
                if stillParked { waiter.completion.complete(with: response) }
            }
        }
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
