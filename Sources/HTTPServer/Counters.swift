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
    /// Bytes accepted by WebSocket `send`s and not yet taken by the clients' sockets, all
    /// connections together (`WebSocketSender`).
    let webSocketQueuedBytes = Atomic<Int>(0)
    /// The most one WebSocket connection has held at once since start.
    let webSocketQueuePeakBytes = Atomic<Int>(0)
    /// WebSocket connections closed with 1008 because their send queue was full.
    let webSocketQueueOverflows = Atomic<Int>(0)

    /// Raises the peak to `held` if it is higher.
    func noteWebSocketQueue(_ held: Int) {
        var current = webSocketQueuePeakBytes.load(ordering: .relaxed)
        while held > current {
            let (exchanged, original) = webSocketQueuePeakBytes.compareExchange(expected: current, desired: held, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
