import Foundation
import Logging
import ServiceKit
import Store
import Sync
import Synchronization

/// The realtime sockets' side of the instance's change stream: the second subscriber of
/// ChangeFanout, beside the long-poll waiters, built the same way (SyncWaiters explains the
/// proof). Each subscribed channel is a *registration*: a user, a sync cursor and a sink.
///
/// For each change the fanout reads once (who may see what committed since its previous
/// read), the registrations whose user may care become due; this thread then reads the due
/// users' deltas from their cursors — *one shared read per distinct cursor* for all users at
/// it (SyncFeed.sharedPages), then a read of their own only for users it leaves out or whose
/// delta runs past its first page, and for lone (user, cursor) questions — turns them into
/// RealtimeChanges (rows leaving the view included, as DELETEs), hands them to every sink of
/// the question and moves their cursors on.
///
/// Sharing by cursor needs different users' channels to sit on the *same* cursor, and they
/// converge there without any cursor being moved by guesswork:
/// - a change that does not concern a user moves its idle channels to the change's snapshot
///   (`advanced`, provably lossless), the same value whoever the user is;
/// - users read by one shared read all land on its one snapshot (its pages' `next`);
/// - a change that does not concern a user while its read runs is applied, with `advanced`,
///   to the cursor the read lands on (`passed`): without it, a read whose snapshot predates
///   that change's stays behind for good, since every later change starts past its cursor;
/// - reads of their own land on the snapshot of their own transaction: the same text for
///   reads between which no writing transaction started or ended (read-only ones take no
///   id), and otherwise they rejoin the others at the next change that does not concern them.
/// So after a quiet moment every idle channel is on one cursor, and a write seen by every
/// user is one shared read, not one per user.
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

    /// One delta to read: a user (and role) at a cursor, and the registrations asking it.
    private struct Question: Sendable {
        struct Key: Hashable, Sendable {
            let viewer: Viewer
            let cursor: String
        }

        let key: Key
        let ids: [UInt64]
        let cursor: SyncCursor
        var viewer: Viewer { key.viewer }
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
    /// Changes that did not concern a registration's user, delivered while its read ran,
    /// merged into one: applied to the cursor the read lands on (see `changed`). Kept apart
    /// from `Registration` so an idle subscriber does not carry the space (bench/realtime's
    /// RSS per idle subscriber grew ~300 bytes with it inline).
    private var passed: [UInt64: SyncService.Change] = [:]
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

    /// Delta reads done so far: per wake-up, one per shared read and one per (user, cursor)
    /// read alone (chains longer than a page count once).
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
        passed[id] = nil
        condition.unlock()
    }

    /// A change from the fanout (nil: its read failed, anyone may have changes). Runs on the
    /// fanout thread: only picks who is due.
    func changed(_ change: SyncService.Change?) {
        condition.lock()
        for (id, registration) in registrations {
            let viewer = registration.viewer
            let concerned = change.map { $0.everyone || viewer.isAdmin || $0.users.contains(viewer.userID) } ?? true
            if concerned || fresh.contains(id) {
                due.insert(id)
            } else if let change, registration.reading {
                // Not advanced now (the read will move the cursor), but not forgotten either:
                // otherwise a read that took its snapshot before this change's and ends after
                // it leaves the channel behind the others for good (the next change's base is
                // past its cursor), and every later write is a read of its own.
                passed[id] = Self.merged(passed[id], change)
            } else if let change, !due.contains(id) {
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
    /// (so nothing comes twice). Idle channels thus land on the same snapshot — of any user:
    /// nothing here depends on who it is — and share their next read.
    static func advanced(_ cursor: SyncCursor, past change: SyncService.Change) -> SyncCursor {
        guard cursor.position == nil, let since = cursor.since, let base = change.base,
              since.covers(base), change.snapshot.covers(since) else { return cursor }
        return SyncCursor(since: change.snapshot, horizon: cursor.horizon)
    }

    /// Consecutive changes (the fanout delivers them in chain order, each from the previous
    /// one's snapshot) as one: from the first's base to the last's snapshot. Only changes that
    /// concern nobody here are merged, so `users` stays empty.
    static func merged(_ earlier: SyncService.Change?, _ change: SyncService.Change) -> SyncService.Change {
        guard let earlier else { return change }
        return SyncService.Change(base: earlier.base, snapshot: change.snapshot, users: [], everyone: false)
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
        // One question per user (and role) and cursor, however many channels ask it.
        var groups: [Question.Key: [UInt64]] = [:]
        for id in ready {
            guard var registration = registrations[id] else { continue }
            registration.reading = true
            registrations[id] = registration
            groups[Question.Key(viewer: registration.viewer, cursor: registration.cursor.encoded()), default: []].append(id)
        }
        due.subtract(ready)
        let questions = groups.compactMap { key, ids in
            registrations[ids[0]].map { Question(key: key, ids: ids, cursor: $0.cursor) }
        }
        condition.unlock()
        read(questions)
        condition.lock()
    }

    /// Reads the questions' deltas: first one shared read per plain cursor that two or more
    /// users ask from (SyncFeed.sharedPages, one snapshot for all of them), then, a few at a
    /// time, a read of their own for the users it left out and for those whose first page
    /// has more (the delta is the whole chain) — and for every other question.
    private func read(_ questions: [Question]) {
        let firstPages = sharedFirstPages(questions)
        forEachInParallel(questions.count, width: parallelReads) { index in
            let question = questions[index]
            let first = firstPages[index]
            if first.map({ $0.hasMore }) ?? true { locked { readCount += 1 } }
            deliver(question, Result { try delta(for: question.viewer, from: question.cursor, first: first) })
        }
    }

    /// The first page of each question that a shared read answered, by index in `questions`.
    private func sharedFirstPages(_ questions: [Question]) -> [Int: SyncPage] {
        let byCursor = Dictionary(grouping: questions.indices) { questions[$0].key.cursor }
        let shareable = byCursor.values.filter { $0.count > 1 && questions[$0[0]].cursor.isPlainDelta }
        let pages = Mutex<[Int: SyncPage]>([:])
        forEachInParallel(shareable.count, width: parallelReads) { job in
            let indices = shareable[job]
            locked { readCount += 1 }
            do {
                let answered = try feed.sharedPages(viewers: indices.map { questions[$0].viewer },
                                                    cursor: questions[indices[0]].cursor, limit: SyncFeed.maxLimit)
                pages.withLock { pages in
                    for index in indices { pages[index] = answered[questions[index].viewer] }
                }
            } catch {
                // Each user's own read follows (and retries, should the database be down).
                logger.warning("shared realtime delta read failed; reading per user", metadata: ["error": "\(error)"])
            }
        }
        return pages.withLock { $0 }
    }

    /// Hands a question's delta to its registrations' sinks and moves their cursors on (or,
    /// when the read failed, leaves them where they were, due again after a pause).
    private func deliver(_ question: Question, _ outcome: Result<([RealtimeChange], SyncCursor), any Error>) {
        let sinks: [Sink] = locked {
            var sinks: [Sink] = []
            for id in question.ids {
                guard var registration = registrations[id] else { continue }
                registration.reading = false
                let passed = self.passed.removeValue(forKey: id)
                switch outcome {
                case .success(let (_, cursor)):
                    // The read covers its chain up to `cursor`; changes delivered meanwhile
                    // that did not concern the user may move it on (provably lossless, as for
                    // an idle channel), unless another change made it due again.
                    registration.cursor = passed.map { due.contains(id) ? cursor : Self.advanced(cursor, past: $0) } ?? cursor
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

    /// The user's whole delta from `cursor` (every page of the chain, starting with `first`
    /// when a shared read gave it) and the cursor after it.
    private func delta(for viewer: Viewer, from cursor: SyncCursor, first: SyncPage?) throws -> ([RealtimeChange], SyncCursor) {
        var pages = first.map { [$0] } ?? []
        var position = first?.next ?? cursor
        while pages.last?.hasMore ?? true {
            let page = try feed.page(viewer: viewer, cursor: position, limit: SyncFeed.maxLimit)
            pages.append(page)
            position = page.next
        }
        return (RealtimeChange.changes(from: pages, now: Date(), epoch: try feed.epoch.current().epoch), position)
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
