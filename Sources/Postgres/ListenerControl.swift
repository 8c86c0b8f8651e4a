import CLinuxSys
import Foundation

/// Cross-thread state of a PostgresListener: a self-pipe to wake its poll(), flags, and
/// condition waits. All flags are guarded by `condition`'s lock.
final class ListenerControl: @unchecked Sendable {
    private let condition = NSCondition()
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var started = false
    private var finished = false
    private var stopRequested = false
    private var listening = false

    init() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe2(&descriptors, Int32(O_NONBLOCK | O_CLOEXEC)) == 0 else {
            throw PostgresError(kind: .protocolViolation, message: "cannot create listener wake pipe: errno \(errno)")
        }
        wakeRead = descriptors[0]
        wakeWrite = descriptors[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    var wakeDescriptor: Int32 { wakeRead }

    func markStarted() -> Bool {
        locked {
            if started || stopRequested { return false }
            started = true
            return true
        }
    }

    func markFinished() {
        condition.lock()
        finished = true
        listening = false
        condition.broadcast()
        condition.unlock()
    }

    func requestStop() {
        condition.lock()
        stopRequested = true
        condition.broadcast()
        condition.unlock()
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Wakes the listener's poll() without stopping it (a fence was requested).
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Empties the wake pipe (non-blocking).
    func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    func waitUntilFinished() {
        condition.lock()
        while started && !finished { condition.wait() }
        condition.unlock()
    }

    var isStopRequested: Bool { locked { stopRequested } }
    var isListening: Bool { locked { listening } }

    func setListening(_ value: Bool) {
        condition.lock()
        listening = value
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilListening(timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while !listening && !stopRequested {
            if !condition.wait(until: deadline) { break }
        }
        return listening
    }

    /// Sleeps for `duration` unless stop is requested first.
    func sleep(_ duration: Duration) {
        let deadline = Date().addingTimeInterval(duration.timeInterval)
        condition.lock()
        while !stopRequested {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
