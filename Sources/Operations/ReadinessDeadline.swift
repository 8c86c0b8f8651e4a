import Foundation
import ServiceKit
import Synchronization

/// Runs a readiness check on a thread of its own and waits for it at most `limit`, so
/// `/readyz` answers in time whatever the database does: a load balancer's probe that hangs
/// is worse than one that says "not ready". Probes that arrive while a check is still under
/// way wait for that one instead of starting another, so a hung database costs one thread.
package final class ReadinessDeadline: Sendable {
    private final class Attempt: Sendable {
        let finished = DispatchGroup()
        let result = Mutex<Readiness?>(nil)
    }

    package let limit: Duration
    private let current = Mutex<Attempt?>(nil)

    package init(limit: Duration) {
        self.limit = limit
    }

    package func check(_ body: @escaping @Sendable () -> Readiness) -> Readiness {
        let attempt = current.withLock { current -> Attempt in
            if let running = current { return running }
            let started = Attempt()
            started.finished.enter()
            current = started
            BackgroundThread.start(name: "readiness-check") { [self] in
                let readiness = body()
                started.result.withLock { $0 = readiness }
                self.current.withLock { if $0 === started { $0 = nil } }
                started.finished.leave()
            }
            return started
        }
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard attempt.finished.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success,
              let readiness = attempt.result.withLock({ $0 })
        else { return .notReady(reason: "the database did not answer within \(limit)") }
        return readiness
    }
}
