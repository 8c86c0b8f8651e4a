import Postgres

/// The change stream as other capabilities see it (Realtime today): subscribe to committed
/// changes, ask for a read, and learn where the stream listens, without reaching into the
/// fan-out, the waiters or the LISTEN connection.
extension SyncService {
    package typealias Change = ChangeFanout.Change

    /// `handler` runs for every change the stream reads (nil: a read found nothing new, or the
    /// stream lost track and every subscriber must re-read).
    package func subscribeToChanges(_ handler: @escaping @Sendable (Change?) -> Void) {
        fanout.subscribe(handler)
    }

    /// Asks the stream to read now, as a notification would.
    package func requestChangeRead() {
        fanout.requestRead()
    }

    /// Where the stream's LISTEN connection goes: PostgreSQL itself, never a transaction
    /// pooler. Another listener (Realtime's broadcast) should go there too.
    package var changeStreamConnection: PostgresConnection.Configuration? {
        fanout.listener?.configuration
    }
}
