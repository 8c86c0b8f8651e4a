import Foundation
import HTTP1
import HTTPServer
import Synchronization

/// Parked long-poll requests of one server instance and the single thread that serves them.
///
/// Waiting costs a dictionary entry: no thread, no database connection. One thread (this
/// one) handles every deadline and every wake-up: when a notification arrives it waits
/// `coalescing` for the burst to settle, then re-reads the page of every waiter (with a few
/// checks in parallel, each holding a pooled connection only for its query) and answers the
/// ones that now have something. Deadlines answer with whatever the page then holds, usually
/// an empty page with a fresh `next_since`.
///
/// A change committing between a request's first read and its parking would be missed, since
/// its notification found no waiter; `generation` counts notifications, and a waiter parked
/// with a stale generation triggers an immediate re-check.
final class SyncWaiters: @unchecked Sendable {
    /// A parked request. `check` reads the page; nil means "nothing yet" (keep waiting) unless
    /// `final` is set (the deadline passed: answer whatever).
    struct Waiter: Sendable {
        let deadline: ContinuousClock.Instant
        let completion: ResponseCompletion
        let check: @Sendable (_ final: Bool) -> HTTPResponse?
    }

    let coalescing: Duration
    let parallelChecks: Int
    // Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var waiters: [UInt64: Waiter] = [:]
    private var nextID: UInt64 = 0
    private var generationCount: UInt64 = 0
    private var wakeAt: ContinuousClock.Instant?
    private var started = false
    private var stopped = false
    private var finished = false

    init(coalescing: Duration = .milliseconds(25), parallelChecks: Int = 4) {
        self.coalescing = coalescing
        self.parallelChecks = parallelChecks
    }

    var count: Int { locked { waiters.count } }
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
        if generation != generationCount && wakeAt == nil { wakeAt = .now }
        condition.signal()
        condition.unlock()
        // Runs on the event loop when the client leaves: only a dictionary removal.
        waiter.completion.onCancel { [weak self] in
            guard let self else { return }
            self.condition.lock()
            self.waiters[id] = nil
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
            for id in expired.keys { waiters[id] = nil }
            var candidates: [(UInt64, Waiter)] = []
            if wake {
                wakeAt = nil
                candidates = Array(waiters)
            }
            condition.unlock()
            serve(expired.map { ($0.key, $0.value) }, final: true)
            serve(candidates, final: false)
            condition.lock()
        }
        finished = true
        condition.broadcast()
        condition.unlock()
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
                guard let response = waiter.check(final) else { continue }
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
