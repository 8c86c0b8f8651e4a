import Foundation
import Postgres

/// One background thread's lifecycle: started at most once, never after `stop()`, and
/// `stop()` returns only once the thread has left its loop. Shared by the instance's long-lived
/// workers (ChangeFanout, RealtimeFeed, PeriodicPruner).
///
/// `condition` guards the lifecycle *and* the owner's own state, so a turn can wait on it
/// for the owner's reasons (new work, a deadline) and `stop()` wakes it all the same. A turn
/// is called with the lock held, may unlock around slow work, and must return with the lock
/// held; it is called again until `stop()`. A turn that waits must check `isStopped` after
/// waking, or return so the loop checks it.
package final class BackgroundLoop: @unchecked Sendable {
    package let condition = NSCondition()
    private let name: String
    // Guarded by `condition`'s lock.
    private var started = false
    private var stopped = false
    private var finished = false

    package init(name: String) {
        self.name = name
    }

    /// Whether `stop()` was called. Read with the lock held.
    package var isStopped: Bool { stopped }

    /// Starts the thread, which runs `prologue` (without the lock), then `turn` until stopped.
    /// Call with the lock held. False (and nothing runs) when already started or stopped.
    @discardableResult
    package func startLocked(prologue: (@Sendable () -> Void)? = nil, turn: @escaping @Sendable () -> Void) -> Bool {
        guard !started, !stopped else { return false }
        started = true
        let thread = Thread { [self] in run(prologue, turn) }
        thread.name = name
        thread.start()
        return true
    }

    /// `startLocked` for a caller that does not hold the lock.
    @discardableResult
    package func start(prologue: (@Sendable () -> Void)? = nil, turn: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return startLocked(prologue: prologue, turn: turn)
    }

    /// Runs `work` every `interval` (also once at start when `immediately`), without the lock,
    /// until `stop()`, which also cuts a wait short. False when already started or stopped.
    @discardableResult
    package func startEvery(_ interval: Duration, immediately: Bool = false, _ work: @escaping @Sendable () -> Void) -> Bool {
        start(prologue: immediately ? work : nil) { [self] in
            _ = condition.wait(until: Date().addingTimeInterval(interval.timeInterval))
            guard !stopped else { return }
            condition.unlock()
            defer { condition.lock() }
            work()
        }
    }

    /// Stops the loop and waits for the thread to leave it (at once if it never started).
    /// Call without the lock; a second call returns at once.
    package func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while started && !finished { condition.wait() }
        condition.unlock()
    }

    private func run(_ prologue: (@Sendable () -> Void)?, _ turn: @Sendable () -> Void) {
        prologue?()
        condition.lock()
        while !stopped { turn() }
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}
