@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Foundation
import Synchronization
import Testing

/// The background-thread lifecycle ChangeFanout, RealtimeFeed and PeriodicPruner share.
@Suite struct BackgroundLoopTests {
    /// Turns run, and count themselves; each waits on the loop's condition as the workers do
    /// (far longer than any test: only `stop()` or a signal ends the wait).
    final class Worker: @unchecked Sendable {
        let loop = BackgroundLoop(name: "test-loop")
        let turns = Mutex(0)
        let prologues = Mutex(0)

        @discardableResult
        func start() -> Bool {
            loop.start(prologue: { [self] in prologues.withLock { $0 += 1 } }, turn: { [self] in
                turns.withLock { $0 += 1 }
                guard !loop.isStopped else { return }
                _ = loop.condition.wait(until: Date().addingTimeInterval(600))
            })
        }

        /// Waits (at most 10 s) until `turns` reaches `count`.
        func waitForTurns(_ count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while turns.withLock({ $0 }) < count && Date() < deadline { usleep(1000) }
            return turns.withLock { $0 } >= count
        }
    }

    @Test func startRunsThePrologueOnceThenTurnsUntilStopped() throws {
        let worker = Worker()
        #expect(worker.start())
        #expect(worker.waitForTurns(1))
        // A signal ends a turn's wait; the loop runs the next turn.
        worker.loop.condition.lock()
        worker.loop.condition.signal()
        worker.loop.condition.unlock()
        #expect(worker.waitForTurns(2))
        #expect(!worker.start(), "a second start must not start a second thread")
        worker.loop.stop()
        let after = worker.turns.withLock { $0 }
        usleep(50_000)
        #expect(worker.turns.withLock { $0 } == after, "no turn runs after stop() returned")
        #expect(worker.prologues.withLock { $0 } == 1)
    }

    @Test func stopWakesATurnWaitingOnTheConditionAndReturnsOnceTheThreadLeft() throws {
        let worker = Worker()
        worker.start()
        #expect(worker.waitForTurns(1))
        let began = ContinuousClock.now
        worker.loop.stop()  // the turn waits 600 s unless stop wakes it
        #expect(ContinuousClock.now - began < .seconds(60))
        worker.loop.condition.lock()
        #expect(worker.loop.isStopped)
        worker.loop.condition.unlock()
    }

    @Test func stopTwiceReturnsAtOnce() throws {
        let worker = Worker()
        worker.start()
        #expect(worker.waitForTurns(1))
        worker.loop.stop()
        let began = ContinuousClock.now
        worker.loop.stop()
        #expect(ContinuousClock.now - began < .seconds(10))
    }

    @Test func stopBeforeStartReturnsAtOnceAndNothingEverRuns() throws {
        let worker = Worker()
        worker.loop.stop()
        #expect(!worker.start(), "a stopped loop must not start")
        usleep(50_000)
        #expect(worker.turns.withLock { $0 } == 0 && worker.prologues.withLock { $0 } == 0)
    }
}
