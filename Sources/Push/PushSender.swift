import Foundation
import Logging
import Postgres
import ServiceKit
import Store
import Sync
import Synchronization

/// Wakes phones: fills the outbox from Sync's change stream and sends what is due, on its own
/// thread (never an event loop or an HTTP worker), so neither a write nor a request ever waits
/// for a push. Every instance runs one; the lease (`LeasedQueue`) keeps two from sending one
/// wake-up, and no transaction is open while a request to the provider is in flight.
///
/// After each change the stream reads (once per burst of commits, after they committed), the
/// change's audience — minus users whose only part was their own claim, minus devices whose
/// session holds a live long-poll or Realtime channel at that moment — gets one wake-up per
/// device, coalesced and paced by `PushPolicy`.
package final class PushSender: Sendable {
    package let service: PushService
    package let policy: PushPolicy
    let apns: (settings: APNsSettings, tokens: APNsProviderToken, client: APNsClient)?
    let fcm: (settings: FCMSettings, tokens: FCMAccessToken, client: FCMClient)?
    private let logger: Logger
    private let worker: OutboxWorker
    private let changes = Mutex<[(change: SyncService.Change, live: Set<UUID>)]>([])
    private let state = Mutex(PushCounts())
    private let stopping = Atomic<Bool>(false)
    private let handled = Atomic<Int>(0)

    /// `apns` and `fcm` nil: nothing is configured to send with, and no wake-up is queued.
    package init(service: PushService, sync: SyncService, apns: APNsSettings?, fcm: FCMSettings? = nil,
                 policy: PushPolicy = PushPolicy(), logger: Logger) {
        self.service = service
        self.policy = policy
        self.logger = logger
        let worker = OutboxWorker(name: "push-sender", subject: "push outbox", logger: logger)
        self.worker = worker
        self.apns = apns.map { settings in
            (settings, APNsProviderToken(key: settings.key, keyID: settings.keyID, teamID: settings.teamID),
             APNsClient(baseURL: settings.baseURL, caFile: settings.caFile, timeout: settings.timeout))
        }
        self.fcm = fcm.map { ($0, FCMAccessToken(settings: $0), FCMClient(caFile: $0.caFile)) }
        guard apns != nil || fcm != nil else { return }
        let live = sync.liveSessions
        // Runs on the fan-out thread: only a copy and a signal, the work is this sender's.
        sync.subscribeToChanges { [weak self] change in
            guard let self, let change else { return }
            let holding = live.current
            changes.withLock { $0.append((change, holding)) }
            worker.wake()
        }
    }

    /// Changes of the stream this sender has finished queueing for (tests wait on it).
    package var changesHandled: Int { handled.load(ordering: .relaxed) }

    package var counts: PushCounts {
        var counts = state.withLock { $0 }
        counts.providerTokens = apns?.tokens.signed ?? 0
        counts.oauthTokens = fcm?.tokens.fetched ?? 0
        return counts
    }

    /// The platforms a wake-up can be sent to (devices of others are not queued).
    var platforms: [PushDevice.Platform] { (apns == nil ? [] : [.ios]) + (fcm == nil ? [] : [.android]) }

    package func start() {
        guard apns != nil || fcm != nil else { return }
        worker.start(round: { [self] in
            enqueueChanges()
            return sendDueBatch() < policy.batchSize ? policy.pollInterval : .zero
        }, housekeeping: OutboxWorker.Housekeeping(countsInterval: policy.countsInterval, refreshCounts: { [self] in
            let stored = try service.outbox.counts()
            state.withLock { $0.pending = stored.pending; $0.deadStored = stored.dead }
        }, prune: { [self] in try service.outbox.prune(olderThan: policy.retention) }),
        hasNewWork: { [self] in !changes.withLock { $0.isEmpty } })
    }

    /// Stops the thread once the push in flight (bounded by the client's timeout) ends.
    package func stop() {
        stopping.store(true, ordering: .relaxed)
        worker.stop()
    }

    /// Every change read since the last turn, in order, each with the sessions live when it
    /// was read: one query for its reasons, one statement to queue its wake-ups.
    private func enqueueChanges() {
        let batch = changes.withLock { pending in
            defer { pending = [] }
            return pending
        }
        for (change, live) in batch {
            defer { handled.add(1, ordering: .relaxed) }
            // The first read after start has no base: it covers everything, so wakes no one.
            guard let base = change.base, change.everyone || !change.users.isEmpty else { continue }
            do {
                let (urgent, actors) = try service.outbox.reasons(since: base, upto: change.snapshot)
                let wake = PushOutboxQueue.Wake(users: change.users, everyone: change.everyone, urgent: urgent, actors: actors,
                                                liveSessions: live, platforms: platforms.map(\.rawValue), snapshot: change.snapshot.text)
                let (queued, coalesced) = try service.outbox.enqueue(wake, minInterval: policy.minInterval)
                count { $0.queued += queued; $0.coalesced += coalesced }
            } catch {
                logger.warning("cannot queue push wake-ups", metadata: ["error": .string(String(describing: error))])
            }
        }
    }

    private func sendDueBatch() -> Int {
        let batch: [PushOutboxQueue.Claimed]
        do {
            batch = try service.outbox.claim(limit: policy.batchSize, lease: policy.lease)
        } catch {
            worker.unavailable(error)
            return 0
        }
        // Stopping: hand the batch back untouched, so the next claim does not take it for
        // interrupted sends.
        if stopping.load(ordering: .relaxed) {
            for push in batch { finish(push, .released) }
            return batch.count
        }
        var ready: [PushOutboxQueue.Claimed] = []
        for push in batch {
            if let verdict = verdictBeforeSending(push) { finish(push, verdict) } else { ready.append(push) }
        }
        let ios = ready.filter { $0.platform == .ios }
        var sent: [PushOutboxQueue.Claimed] = []
        for (push, outcome) in zip(ios, attemptAPNs(ios)) {
            if outcome == .sent(status: 200) { sent.append(push) } else { finish(push, outcome) }
        }
        worker.record("push", metadata: ["pushes": .stringConvertible(sent.count)]) {
            try service.outbox.finishSent(sent, status: 200, minInterval: policy.minInterval) == sent.count
        }
        let started = ContinuousClock.now
        for push in ready where push.platform == .android {
            // FCM takes one message per request: past half the lease (slow answers), the rest
            // go back untouched.
            let late = ContinuousClock.now - started > policy.lease / 2
            finish(push, stopping.load(ordering: .relaxed) || late ? .released : attemptFCM(push))
        }
        return batch.count
    }

    private func finish(_ push: PushOutboxQueue.Claimed, _ outcome: PushOutboxQueue.Outcome) {
        worker.record("push", metadata: ["push_id": .string(push.id.uuidString)]) {
            try service.outbox.finish(push, outcome, minInterval: policy.minInterval)
        }
    }

    func count(_ change: (inout PushCounts) -> Void) {
        state.withLock { change(&$0) }
    }

    var log: Logger { logger }
}
