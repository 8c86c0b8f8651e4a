import Foundation

/// Fence requests of a PostgresListener: callers ask for a round trip on the LISTEN
/// connection and wait for one that was *sent after they asked*. Many callers share one
/// round trip (a ticket is served by any fence whose query was sent after the ticket was
/// taken), so the database sees one `SELECT` per batch, however many requests wait.
///
/// Guarded by `condition`'s lock.
final class ListenerFences: @unchecked Sendable {
    private let condition = NSCondition()
    private var requested: UInt64 = 0
    private var completed: UInt64 = 0
    /// The outcome of the most recent fence (nil: it failed, the connection was lost).
    private var latest: PostgresListener.Fence?

    /// Registers a request; the ticket is served by the first fence sent after this call.
    func request() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        requested += 1
        return requested
    }

    /// The highest ticket waiting, if any (read by the listener thread *before* it sends the
    /// fence query: every ticket up to it was taken before the query left).
    func pending() -> UInt64? {
        condition.lock()
        defer { condition.unlock() }
        return requested > completed ? requested : nil
    }

    /// Every ticket up to `ticket` is served by `fence` (nil: it failed).
    func complete(through ticket: UInt64, with fence: PostgresListener.Fence?) {
        condition.lock()
        completed = max(completed, ticket)
        latest = fence
        condition.broadcast()
        condition.unlock()
    }

    /// Fails every waiting ticket (the connection is gone; a fence would prove nothing).
    func failPending() {
        condition.lock()
        completed = requested
        latest = nil
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `ticket` is served; nil on failure or timeout. A later fence than the one
    /// that served the ticket may be returned: it was sent later still, so it proves as much.
    func wait(for ticket: UInt64, until deadline: Date) -> PostgresListener.Fence? {
        condition.lock()
        defer { condition.unlock() }
        while completed < ticket {
            if !condition.wait(until: deadline) { return nil }
        }
        return latest
    }
}
