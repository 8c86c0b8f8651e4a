import Synchronization

/// Counters readable from any thread for `HTTPServer.metrics`.
final class Counters: Sendable {
    let open = Atomic<Int>(0)
    let accepted = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
}
