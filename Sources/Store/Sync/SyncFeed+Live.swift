import Postgres

extension SyncFeed {
    /// A cursor at the database's current snapshot, without reading any rows: deltas from it
    /// hold exactly what commits from now on (and revocations from now on). Realtime
    /// subscriptions start here, so a write committed after the subscription is armed is
    /// never missed, and nothing from before is replayed.
    public func currentCursor() throws -> SyncCursor {
        try pool.withConnection { connection in
            let (snapshot, horizon) = try snapshotAndHorizon(on: connection)
            return SyncCursor(since: snapshot, horizon: horizon)
        }
    }
}
