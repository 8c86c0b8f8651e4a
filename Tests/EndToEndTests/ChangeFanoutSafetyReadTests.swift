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
import Logging
@testable import Store
import Synchronization
import Testing

/// ChangeFanout's safety read: a commit whose writer died between its commit and its wake-up
/// (migrations/0026) is read all the same, without any notification.
@Suite struct ChangeFanoutSafetyReadTests {
    @Test func theFanoutReadsAgainWithoutAnyNotification() throws {
        let reads = Mutex(0)
        let quiet = Logger(label: "fanout-safety", factory: { _ in SwiftLogNoOpLogHandler() })
        // No listener: no notification and no reconnect can ask for a read; nobody subscribes.
        let fanout = ChangeFanout(connection: nil, channel: "unused", safetyInterval: .milliseconds(20), logger: quiet) { _ in
            let count = UInt64(reads.withLock { $0 += 1; return $0 })
            return SyncFeed.Audience(snapshot: SyncSnapshot(xmin: count, xmax: count, running: []), horizon: 0,
                                     users: [], everyone: false)
        }
        fanout.start()
        defer { fanout.stop() }
        // The start-up read, then the safety reads (waiting at most 10 s for them to happen).
        let deadline = Date().addingTimeInterval(10)
        while reads.withLock({ $0 }) < 3 && Date() < deadline { usleep(1000) }
        #expect(reads.withLock { $0 } >= 3)
    }
}
