import Domain
import Foundation
import HTTP1
import HTTPServer
import ServiceKit
import Store
import Synchronization

/// Parked long-poll requests of one server instance and the single thread that serves them;
/// a subscriber of the instance's ChangeFanout.
///
/// Waiting costs a dictionary entry: no thread, no database connection. For each change the
/// fanout reads (once, for all waiters: who may care about what committed since its previous
/// read), `changed` picks the waiters concerned; this thread then re-reads their pages —
/// *one shared read per distinct cursor and limit* for all users asking from it
/// (SyncFeed.sharedPages), and one read per distinct request (same user, cursor and limit:
/// thousands of one user's devices parked on the same cursor cost one read) for what it
/// leaves out, a few in parallel, each holding a pooled connection only for its query — and
/// answers those that now have something. Deadlines
/// answer with whatever the page then holds, usually an empty page with a fresh `next_since`.
///
/// Why no commit is overlooked: change k covers what committed after change k-1's snapshot.
/// A waiter whose first page was read at a snapshot that covers change k-1's (`seen`, see
/// SyncSnapshot.covers) missed nothing before it, so the audiences from change k on cover it.
/// Any other waiter is *fresh*: its page is re-read at the next change regardless of the
/// audience (after that change's snapshot was taken, so from then on the audiences cover it),
/// and the fanout is asked for that change at once. Should a read fail (`nil`), everyone is
/// re-checked; at worst a waiter answers at its deadline — its page read then is complete.
///
/// At the deadline, a plain delta whose user ChangeHistory proves has nothing new (as for an
/// idle sync: one fence on the LISTEN connection for every waiter expiring at once, then
/// memory) is answered without a read (`idleAnswer`); the others read their page.
package final class SyncWaiters: @unchecked Sendable {
    package let parallelChecks: Int
    private let sharedRead: SharedRead?
    private let idleAnswer: IdleAnswer?
    private let requestChange: @Sendable () -> Void
    /// The sessions of parked requests (a push to their phone would be wasted).
    package let live: LiveSessions
    // Everything below is guarded by `condition`'s lock.
    private let loop = BackgroundLoop(name: "sync-waiters")
    private var condition: NSCondition { loop.condition }
    private var waiters: [UInt64: Waiter] = [:]
    /// Parked without proof that the audiences cover them: re-read at the next change.
    private var fresh: Set<UInt64> = []
    /// Picked by a change, waiting for this thread to re-read them.
    private var due: Set<UInt64> = []
    /// The snapshot of the last change delivered (the next change starts from it).
    private var lastChange: SyncSnapshot?
    private var checkCount = 0
    private var readCount = 0
    private var memoryCount = 0
    private var nextID: UInt64 = 0
    /// When the sleeping thread wakes by itself (nil while it is awake).
    private var wakeAt: ContinuousClock.Instant?

    /// Deadlines are answered in batches: the thread sleeps until the next deadline plus this,
    /// so one turn answers every request expiring within it (one scan of the waiters, one
    /// fence) instead of a turn per request. With thousands parked (their deadlines spread
    /// over the seconds they connected in) a turn per deadline and per park, each scanning
    /// every waiter, cost more than the expired requests' own answers. A long-poll answered
    /// this much after its `wait` is still a long-poll answered.
    package static let deadlineBatching: Duration = .milliseconds(50)

    /// `requestChange`: ask the fanout for a change soon (a fresh waiter parked).
    package init(parallelChecks: Int = 4, sharedRead: SharedRead? = nil, idleAnswer: IdleAnswer? = nil,
                 live: LiveSessions = LiveSessions(), requestChange: @escaping @Sendable () -> Void) {
        self.parallelChecks = parallelChecks
        self.live = live
        self.sharedRead = sharedRead
        self.idleAnswer = idleAnswer
        self.requestChange = requestChange
    }

    package var count: Int { locked { waiters.count } }
    /// Waiters answered or re-checked after a page read (`sync_waiter_checks_total`).
    package var checks: Int { locked { checkCount } }
    /// Page reads done for parked requests: per wake-up, one per shared read and one per
    /// distinct request read alone (`sync_waiter_reads_total`).
    package var reads: Int { locked { readCount } }
    /// Expired requests answered from memory, without a read (`sync_waiter_memory_answers_total`).
    package var memoryAnswers: Int { locked { memoryCount } }

    /// A change from the fanout (nil: a read failed, anyone may have changes). Runs on the
    /// fanout thread: picks the waiters concerned and leaves the reading to this thread.
    package func changed(_ change: ChangeFanout.Change?) {
        condition.lock()
        for (id, waiter) in waiters {
            let concerned = change.map { $0.everyone || waiter.viewer.isAdmin || $0.users.contains(waiter.viewer.userID) } ?? true
            if concerned || fresh.contains(id) { due.insert(id) }
        }
        fresh.removeAll()
        if let change { lastChange = change.snapshot }
        if !due.isEmpty { condition.signal() }
        condition.unlock()
    }

    /// Parks a request after its first, empty page.
    package func park(_ waiter: Waiter) {
        condition.lock()
        startIfNeeded()
        let id = nextID
        nextID += 1
        waiters[id] = waiter
        if let session = waiter.session { live.hold(session) }
        let covered = waiter.seen.flatMap { seen in lastChange.map { seen.covers($0) } } ?? false
        if !covered { fresh.insert(id) }
        // A fresh waiter is read at the change it requests below (`changed` wakes the thread);
        // otherwise only a deadline earlier than the sleeping thread's own wake-up needs it.
        if let wakeAt, waiter.deadline + Self.deadlineBatching < wakeAt { condition.signal() }
        condition.unlock()
        if !covered { requestChange() }
        // Runs on the event loop when the client leaves: only a dictionary removal.
        waiter.completion.onCancel { [weak self] in
            guard let self else { return }
            self.condition.lock()
            self.remove(id)
            self.fresh.remove(id)
            self.due.remove(id)
            self.condition.unlock()
        }
    }

    package func stop() {
        loop.stop()
        condition.lock()
        let leftovers = waiters
        for id in leftovers.keys { remove(id) }
        condition.unlock()
        for waiter in leftovers.values {
            waiter.completion.complete(with: HTTPError(status: .serviceUnavailable, code: ErrorCode.shuttingDown.rawValue,
                                                       message: "The server is shutting down; retry shortly.").response)
        }
    }

    // MARK: The thread

    /// Called with the lock held.
    private func startIfNeeded() {
        loop.startLocked { [self] in turn() }
    }

    /// One turn of the thread, with the lock held (`BackgroundLoop`): answer the expired,
    /// re-read the due, or sleep until the next deadline or change.
    private func turn() {
        let now = ContinuousClock.now
        let expired = waiters.filter { $0.value.deadline <= now }
        if expired.isEmpty && due.isEmpty {
            let nextDeadline = waiters.values.map(\.deadline).min().map { $0 + Self.deadlineBatching } ?? now + .seconds(60)
            let until = min(nextDeadline, now + .seconds(60))
            wakeAt = until
            _ = condition.wait(until: Date().addingTimeInterval((until - now).timeInterval))
            wakeAt = nil
            return
        }
        for id in expired.keys {
            remove(id)
            fresh.remove(id)
            due.remove(id)
        }
        let picked = due.compactMap { id in waiters[id].map { (id, $0) } }
        due.removeAll()
        condition.unlock()
        serve(answerIdle(expired.map { ($0.key, $0.value) }), final: true)
        serve(picked, final: false)
        condition.lock()
    }

    /// Answers waiters: first one shared read per plain cursor and limit that two or more
    /// users ask from (`sharedRead`), then a read of its own for each question it left out
    /// and each other question; a few reads at a time (each holds one pooled connection while
    /// it reads). Every waiter asking a question gets its answer.
    private func serve(_ batch: [(UInt64, Waiter)], final: Bool) {
        let questions = Dictionary(grouping: batch.filter { !$0.1.completion.isCancelled }, by: \.1.question).values
        let byCursor = Dictionary(grouping: questions) { $0[0].1.sharedQuestion ?? "" }.values
        let isShared = { (job: [[(UInt64, Waiter)]]) in self.sharedRead != nil && job[0][0].1.sharedQuestion != nil && job.count > 1 }
        let alone = byCursor.filter { !isShared($0) }.flatMap { $0 } + answerShared(byCursor.filter(isShared), final: final)
        forEachInParallel(alone.count, width: parallelChecks) { index in
            let group = alone[index]
            let found = group[0].1.check(final)
            locked { readCount += 1 }
            if let found { answer(group, with: found, final: final) } else { locked { checkCount += group.count } }
        }
    }

    /// Answers the expired plain deltas that `idleAnswer` proves have nothing new (an empty
    /// page from its cursor, the same the read would give); returns the others.
    private func answerIdle(_ expired: [(UInt64, Waiter)]) -> [(UInt64, Waiter)] {
        guard let idleAnswer else { return expired }
        let candidates = expired.filter { !$0.1.completion.isCancelled && $0.1.cursor.isPlainDelta && !$0.1.viewer.isAdmin }
        guard !candidates.isEmpty else { return expired }
        let cursors = idleAnswer(candidates.map { ($0.1.viewer, $0.1.cursor) })
        let answers = zip(candidates, cursors).compactMap { candidate, next in
            next.flatMap { next in
                Waiter.response(to: SyncPage(next: next), final: true, epoch: candidate.1.epoch).map { (candidate, next, $0) }
            }
        }
        // Counted before the answers leave, so a client that has its answer sees the count.
        locked {
            memoryCount += answers.count
            checkCount += answers.count
        }
        for ((_, waiter), next, found) in answers {
            waiter.answered(next)
            waiter.completion.complete(with: found.response)
        }
        let answered = Set(answers.map(\.0.0))
        return expired.filter { !answered.contains($0.0) }
    }

    /// One shared read for each job's questions (same cursor and limit, different users);
    /// returns the questions it did not answer.
    private func answerShared(_ jobs: [[[(UInt64, Waiter)]]], final: Bool) -> [[(UInt64, Waiter)]] {
        guard let sharedRead else { return jobs.flatMap { $0 } }
        let left = Mutex<[[(UInt64, Waiter)]]>([])
        forEachInParallel(jobs.count, width: parallelChecks) { index in
            let job = jobs[index]
            let asked = job[0][0].1
            // A failed shared read leaves everyone to their own read, which reports the error.
            let pages = (try? sharedRead(job.map { $0[0].1.viewer }, asked.cursor, asked.limit)) ?? [:]
            locked { readCount += 1 }
            for group in job {
                guard let page = pages[group[0].1.viewer] else {
                    left.withLock { $0.append(group) }
                    continue
                }
                if let found = Waiter.response(to: page, final: final, epoch: asked.epoch) {
                    answer(group, with: found, final: final)
                } else {
                    locked { checkCount += group.count }
                }
            }
        }
        return left.withLock { $0 }
    }

    /// Answers every waiter of `group` still parked (not cancelled, not already answered).
    private func answer(_ group: [(UInt64, Waiter)], with found: Answer, final: Bool) {
        locked { checkCount += group.count }
        for (id, waiter) in group {
            let stillParked = final || locked { remove(id) }
            guard stillParked else { continue }
            if let next = found.next { waiter.answered(next) }
            waiter.completion.complete(with: found.response)
        }
    }

    /// Removes a waiter (lock held) and releases its session's hold; false when it was gone.
    @discardableResult
    private func remove(_ id: UInt64) -> Bool {
        guard let waiter = waiters.removeValue(forKey: id) else { return false }
        if let session = waiter.session { live.release(session) }
        return true
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
