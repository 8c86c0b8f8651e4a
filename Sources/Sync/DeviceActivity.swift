import Foundation
import Logging
import RouteKit
import ServiceKit
import Store
import Synchronization

/// Last-seen times and sync-health counters per device (a sign-in session or an API key),
/// gathered in memory and written to `sync_device_health` in batches.
///
/// Why batches: recording on every request would be a write per request, the one thing a
/// busy sync server cannot afford. A request only updates this map (one lock, one dictionary
/// entry; no I/O). Every `interval` the background loop swaps the map out and writes it in ONE
/// statement (`DeviceHealthStore.record`), and only when something happened: an idle server
/// writes nothing; a busy one writes 60 / interval statements per minute, each touching one
/// row per device active in that window. Shutdown flushes what is left. What a crash loses
/// is at most one interval of last-seen times and counters, which only the console reads.
package final class DeviceActivity: Sendable {
    /// The flush period: at most six statements a minute per instance.
    package static let defaultInterval: Duration = .seconds(10)
    /// Bounds the memory of one interval: past this many devices, new ones wait for the next
    /// flush (the flush is triggered at once); known ones still update.
    package static let maximumPending = 50_000

    private let store: DeviceHealthStore
    private let interval: Duration
    private let logger: Logger
    private let pending = Mutex<[UUID: DeviceHealthDelta]>([:])
    private let loop: BackgroundLoop

    package init(store: DeviceHealthStore, interval: Duration = DeviceActivity.defaultInterval,
                logger: Logger = Logger(label: "device-activity")) {
        self.store = store
        self.interval = interval
        self.logger = logger
        loop = BackgroundLoop(name: "device-activity")
    }

    package func start() {
        loop.start { [self] in flushThenWait() }
    }

    /// Stops the loop, then writes what is left.
    package func stop() {
        loop.stop()
        do { try flush() } catch { logger.warning("cannot record device activity at shutdown", metadata: ["error": "\(error)"]) }
    }

    /// Devices with unwritten activity (tests, metrics).
    package var pendingCount: Int { pending.withLock { $0.count } }

    /// Any authenticated request: the device was seen now.
    package func seen(_ principal: Principal) {
        update(principal) { _ in }
    }

    /// A sync answered; `cursor`, stamped with `epoch`, is the `next_since` the device now holds.
    package func synced(_ principal: Principal, cursor: SyncCursor, epoch: String) {
        update(principal) {
            $0.lastSync = $0.lastSeen
            $0.cursor = cursor
            $0.cursorEpoch = epoch
            $0.syncs += 1
        }
    }

    /// A sync answered 410 resync_required: the device must start over.
    package func reset(_ principal: Principal) {
        update(principal) {
            $0.lastReset = $0.lastSeen
            $0.resets += 1
        }
    }

    /// A push applied; the results its mutations got (replays are not counted again).
    package func pushed(_ principal: Principal, _ tally: PushTally) {
        update(principal) {
            $0.lastPush = $0.lastSeen
            $0.pushes += 1
            $0.rejected += tally.rejected
            $0.conflicts += tally.conflicts
            $0.claimConflicts += tally.claimConflicts
        }
    }

    /// Writes everything gathered so far in one statement; on failure the batch is merged
    /// back (counters are not lost to a short outage) and the error thrown.
    package func flush() throws {
        let batch = pending.withLock { map -> [DeviceHealthDelta] in
            defer { map.removeAll(keepingCapacity: true) }
            return Array(map.values)
        }
        do {
            try store.record(batch)
        } catch {
            pending.withLock { map in
                for delta in batch { map[delta.deviceID] = Self.merged(delta, into: map[delta.deviceID]) }
            }
            throw error
        }
    }

    private func update(_ principal: Principal, _ change: (inout DeviceHealthDelta) -> Void) {
        let device: (UUID, DeviceHealthDelta.Kind)
        if let session = principal.sessionID {
            device = (session, .session)
        } else if let key = principal.apiKeyID {
            device = (key, .apiKey)
        } else {
            return
        }
        let now = Date()
        let full = pending.withLock { map -> Bool in
            var delta = map[device.0] ?? DeviceHealthDelta(deviceID: device.0, kind: device.1, userID: principal.userID, at: now)
            guard map[device.0] != nil || map.count < Self.maximumPending else { return true }
            delta.lastSeen = now
            change(&delta)
            map[device.0] = delta
            return false
        }
        if full { loop.condition.signal() }
    }

    /// `older` (a batch that failed to write) folded into what arrived meanwhile, if anything.
    package static func merged(_ older: DeviceHealthDelta, into newer: DeviceHealthDelta?) -> DeviceHealthDelta {
        guard var result = newer else { return older }
        result.firstSeen = min(result.firstSeen, older.firstSeen)
        if result.lastSync == nil {
            (result.lastSync, result.cursor, result.cursorEpoch) = (older.lastSync, older.cursor, older.cursorEpoch)
        }
        result.lastPush = result.lastPush ?? older.lastPush
        result.lastReset = result.lastReset ?? older.lastReset
        result.syncs += older.syncs
        result.pushes += older.pushes
        result.resets += older.resets
        result.rejected += older.rejected
        result.conflicts += older.conflicts
        result.claimConflicts += older.claimConflicts
        return result
    }

    /// One turn of the loop (lock held): flush without the lock, then sleep until the next
    /// round, a full map or `stop()`.
    private func flushThenWait() {
        loop.condition.unlock()
        do { try flush() } catch { logger.warning("cannot record device activity; will retry", metadata: ["error": "\(error)"]) }
        loop.condition.lock()
        guard !loop.isStopped else { return }
        _ = loop.condition.wait(until: Date().addingTimeInterval(interval.timeInterval))
    }
}

/// What one push's fresh mutations got: `rejected`, or `conflict` for a stale base_version
/// (412) or someone else's claim (409 claim_conflict).
package struct PushTally {
    package enum Outcome {
        case applied, rejected, conflict, claimConflict
    }

    package var rejected = 0
    package var conflicts = 0
    package var claimConflicts = 0

    /// Counts a fresh outcome; nil (a replayed result) counts nothing.
    package mutating func count(_ outcome: Outcome?) {
        switch outcome {
        case .rejected?: rejected += 1
        case .conflict?: conflicts += 1
        case .claimConflict?: claimConflicts += 1
        case .applied?, nil: break
        }
    }
}
