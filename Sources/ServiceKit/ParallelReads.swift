import Foundation
import Synchronization

/// Runs `body(0..<count)` on at most `width` threads at once. Database reads are bounded this
/// way rather than by concurrentPerform's own width, which follows the CPUs, not the pool.
package func forEachInParallel(_ count: Int, width: Int, _ body: @Sendable (Int) -> Void) {
    guard count > 0 else { return }
    let next = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: min(max(width, 1), count)) { _ in
        while true {
            let index = next.withLock { value in
                defer { value += 1 }
                return value
            }
            guard index < count else { return }
            body(index)
        }
    }
}
