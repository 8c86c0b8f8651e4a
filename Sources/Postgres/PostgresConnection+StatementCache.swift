import CLibPQ

/// `query` through named prepared statements (see `PostgresStatementCache` for why).
///
/// Staying correct while the server changes under the cache:
/// - Reconnect (`reset`, a new pool connection): the cache starts empty with the session.
/// - DDL: PostgreSQL re-plans a prepared statement by itself when a table it reads changes;
///   only a change of the statement's result columns fails, with "cached plan must not change
///   result type" (0A000). That entry is dropped and the statement prepared again.
/// - DISCARD ALL / DEALLOCATE ALL (or a pooler that swapped the server session): executing
///   a known name fails with 26000; the whole cache is dropped and the statement prepared again.
/// - Retrying is only safe outside a transaction, where the failed statement rolled back on
///   its own. Inside one, the transaction is already aborted: the error goes to the caller
///   (whose retry, or the next request, then prepares afresh).
/// - A statement that fails to prepare (syntax error, aborted transaction) is never cached.
extension PostgresConnection {
    func cachedQuery(_ query: PostgresQuery, on connection: OpaquePointer) throws -> PostgresRows {
        let types = query.binds.map(\.typeOID)
        let key = PostgresStatementCache.Key(sql: query.sql, types: types)
        let autocommit = transactionStatus == .idle
        if let name = statementCache.name(for: key) {
            do {
                return try executePrepared(name, query, on: connection)
            } catch let error as PostgresError where error.code == .invalidSQLStatementName {
                statementCache.removeAll()
                guard autocommit else { throw error }
            } catch let error as PostgresError where error.code == .featureNotSupported {
                statementCache.remove(key, deallocate: true)
                guard autocommit else { throw error }
            }
        }
        deallocateEvictedStatements()
        let name = statementCache.makeName()
        _ = try exchange(connection, sql: query.sql, executes: false) {
            PQsendPrepare(connection, name, query.sql, Int32(types.count), types)
        }
        statementCache.insert(key, name: name)
        return try executePrepared(name, query, on: connection)
    }

    /// DEALLOCATEs statements evicted from the cache, but only between transactions: inside
    /// one, a failing DEALLOCATE (the server already dropped the statement) would abort the
    /// caller's transaction. Until then they merely occupy server memory. Errors are ignored
    /// for the same reason they cannot matter: the statement is gone either way.
    func deallocateEvictedStatements() {
        guard let connection = try? liveHandle(), transactionStatus == .idle,
              !statementCache.pendingDeallocations.isEmpty
        else { return }
        for name in statementCache.takePendingDeallocations() {
            let sql = "DEALLOCATE \(name)"
            _ = try? exchange(connection, sql: sql, executes: false) { PQsendQuery(connection, sql) }
            guard isHealthy else { return }
        }
    }

    private func executePrepared(_ name: String, _ query: PostgresQuery, on connection: OpaquePointer) throws -> PostgresRows {
        try withCParameters(query.binds) { values, _ in
            try exchange(connection, sql: query.sql) {
                PQsendQueryPrepared(connection, name, Int32(values.count), values, nil, nil, 0)
            }
        }
    }
}
