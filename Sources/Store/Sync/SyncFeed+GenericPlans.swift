import Postgres

extension SyncFeed {
    /// The statements that open a delta read's REPEATABLE READ transaction, before its first
    /// query (which takes the snapshot): READ ONLY and, where statements are prepared, generic
    /// plans for this transaction only, in one round trip.
    ///
    /// Why generic plans: every long-poll woken and every Realtime channel due is a delta read,
    /// and PostgreSQL spent most of such a read *planning* it. With the default
    /// `plan_cache_mode` (auto) a prepared statement keeps a custom plan whenever its generic
    /// plan's estimated cost is higher than the custom ones' — and with the cursor's bounds as
    /// parameters it always is (a custom plan sees that `txid >= 123456` selects no row), so
    /// the shared delta read was planned afresh at every wake-up (50 ms of `bind` a call,
    /// bench/phones) and a stage page at every page. The generic plans are the same index
    /// range scans on `txid` (`txid >= $1 AND txid < $2` is estimated at 0.5 % of a table,
    /// SyncStagePlanTests and SyncSharedDeltaPlanTests check them on real plans), planned once
    /// per pooled connection. `SET LOCAL` keeps every other statement — the list reads, tuned
    /// with custom plans — on the server's setting. Behind a transaction pooler nothing is
    /// prepared (each statement is planned anyway), so a generic plan would only lose the
    /// parameters' values: there, and with the statement cache off, only READ ONLY is set.
    /// (`SET` needs no snapshot, so the snapshot is still taken by the caller's first query.)
    /// `delta: false` (a full snapshot, whose statements read whole tables and keep custom
    /// plans): READ ONLY alone.
    func beginDeltaRead(on connection: PostgresConnection, delta: Bool = true) throws {
        let prepares = !connection.configuration.transactionPooled && connection.configuration.statementCacheCapacity > 0
        guard delta, prepares else {
            try connection.execute("SET TRANSACTION READ ONLY")
            return
        }
        try connection.runTrustedScript(Self.deltaReadSettings)
    }

    static let deltaReadSettings = "SET TRANSACTION READ ONLY; SET LOCAL plan_cache_mode = force_generic_plan"
}
