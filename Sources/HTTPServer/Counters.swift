import Synchronization

/// Counters readable from any thread for `HTTPServer.metrics`.
final class Counters: Sendable {
    let open = Atomic<Int>(0)
    let accepted = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    /// Upgraded connections currently open (also counted in `open`).
    let webSockets = Atomic<Int>(0)
    /// WebSocket handler callbacks queued or running; shutdown waits for them (`closed` must run).
    let webSocketCallbacks = Atomic<Int>(0)
}
