import Foundation
import Logging
import ServiceKit
import Store
import Synchronization

/// The in-memory set of revoked session ids that lets access tokens be checked without a
/// database round trip while revocation still takes effect.
///
/// Revocations made by this instance are added at once. Revocations made by other instances
/// arrive through a poll of `auth_sessions.revoked_at` every `pollInterval` (1 s by default):
/// that is the longest window in which another replica may still accept a revoked session's
/// access token. Ids are forgotten once every token of theirs has expired (revocation time +
/// access-token lifetime), so the set stays small.
package final class RevokedSessions: Sendable {
    private struct State {
        var revoked: [UUID: Date] = [:]
        var watermark: Date?
    }

    private let state = Mutex(State())
    private let store: SessionStore
    private let retention: TimeInterval
    private let pollInterval: Duration
    private let logger: Logger
    private let loop = BackgroundLoop(name: "revoked-sessions")

    package init(store: SessionStore, accessTokenTTL: Duration, pollInterval: Duration = .seconds(1), logger: Logger) {
        self.store = store
        self.retention = TimeInterval(accessTokenTTL.components.seconds) + 60
        self.pollInterval = pollInterval
        self.logger = logger
    }

    package func contains(_ sessionID: UUID) -> Bool {
        state.withLock { $0.revoked[sessionID] != nil }
    }

    package func insert(_ sessionIDs: [UUID]) {
        let now = Date()
        state.withLock { state in
            for id in sessionIDs { state.revoked[id] = now }
        }
    }

    /// Loads revocations recent enough to matter, then one poll; throws when the database is
    /// unreachable so a server never starts without knowing current revocations.
    package func refresh() throws {
        let since = state.withLock { $0.watermark } ?? Date().addingTimeInterval(-retention)
        // Overlap the previous poll by a few seconds: a transaction that revoked before our last
        // poll but committed after it carries an earlier revoked_at.
        let (ids, databaseNow) = try store.revokedSince(since.addingTimeInterval(-5))
        let now = Date()
        state.withLock { state in
            for id in ids where state.revoked[id] == nil { state.revoked[id] = now }
            state.watermark = databaseNow
            state.revoked = state.revoked.filter { now.timeIntervalSince($0.value) < retention }
        }
    }

    /// Polls on a background thread until `stop()`.
    package func start() throws {
        try refresh()
        loop.startEvery(pollInterval) { [self] in
            do {
                try refresh()
            } catch {
                logger.warning("revoked-session poll failed", metadata: ["error": .string("\(error)")])
            }
        }
    }

    package func stop() {
        loop.stop()
    }
}
