import Foundation
import Synchronization

/// The sign-in sessions of this instance that hold a live long-poll or Realtime channel right
/// now: they receive changes as they commit, so waking their phone with a push is wasted. A
/// counted set, because one session may hold several (two tabs, a long-poll and a channel).
package final class LiveSessions: Sendable {
    private let held = Mutex<[UUID: Int]>([:])

    package init() {}

    package func hold(_ session: UUID) {
        held.withLock { $0[session, default: 0] += 1 }
    }

    package func release(_ session: UUID) {
        held.withLock { held in
            guard let count = held[session] else { return }
            held[session] = count > 1 ? count - 1 : nil
        }
    }

    /// A copy taken at one moment (the push engine reads it once per change).
    package var current: Set<UUID> { held.withLock { Set($0.keys) } }
}
