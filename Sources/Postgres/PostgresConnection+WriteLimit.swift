extension PostgresConnection {
    /// Rolls back and throws when the open transaction has written and is older than `limit`.
    ///
    /// The age is measured on this process's monotonic clock from before BEGIN was sent, so it
    /// is never less than the database's own `clock_timestamp() - now()` at this point, and it
    /// costs no round trip: only a transaction already over the limit asks the database whether
    /// it wrote (a long read-only transaction, such as a sync page, commits as usual).
    func enforceWriteLimit(_ limit: Duration?, startedAt started: ContinuousClock.Instant) throws {
        guard let limit, ContinuousClock.now - started > limit else { return }
        let wrote = try query("SELECT txid_current_if_assigned() IS NOT NULL AS wrote").first?.decode("wrote", as: Bool.self)
        guard wrote == true else { return }
        rollbackQuietly()
        throw PostgresError(kind: .server, code: .queryCanceled,
                            message: "write transaction ran longer than its limit (\(limit)) and was rolled back")
    }
}
