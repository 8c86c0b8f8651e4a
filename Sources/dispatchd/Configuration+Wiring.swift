import API
import HTTP1
import HTTPServer
import Postgres
import Supabase
import Sync

/// Maps the validated settings onto the configuration types of the layers they tune.
extension Configuration {
    var httpServerConfiguration: HTTPServerConfiguration {
        // Avatar uploads need more than the parser's 1 MiB default; JSON routes keep 1 MiB.
        var limits = HTTPParserLimits(maxBodyBytes: APIApplication.maxRequestBodyBytes)
        if let value = http.maxBodyBytes { limits.maxBodyBytes = value }
        if let value = http.maxHeaderBytes { limits.maxHeaderBytes = value }
        if let value = http.maxRequestLineBytes { limits.maxRequestLineBytes = value }
        if let value = http.maxHeaderFields { limits.maxHeaderCount = value }
        var server = HTTPServerConfiguration(host: host, port: port, limits: limits)
        if let value = http.headerTimeout { server.headerReadTimeout = .seconds(value) }
        if let value = http.bodyTimeout { server.bodyReadTimeout = .seconds(value) }
        if let value = http.idleTimeout { server.idleTimeout = .seconds(value) }
        if let value = http.writeTimeout { server.writeTimeout = .seconds(value) }
        if let value = http.shutdownTimeout { server.shutdownGracePeriod = .seconds(value) }
        // Unset: what the open-file limit (raised at start) leaves for connections.
        if let value = http.maxConnections ?? OpenFileLimit.current()?.defaultMaxConnections { server.maxConnections = value }
        server.listenBacklog = http.listenBacklog
        // Handlers block on the database; fewer workers than connections would leave
        // connections unused, and /healthz must not queue behind database waits.
        server.workerCount = http.workers ?? max(HTTPServerConfiguration.defaultWorkerCount, databasePoolSize)
        server.corsAllowedOrigins = http.corsAllowedOrigins
        server.webSocket = webSocket.serverConfiguration
        return server
    }

    /// The /rest/v1 delta overlap: the longest a write can take to commit (a transaction is
    /// cut at WRITE_TRANSACTION_TIMEOUT, a single statement at DB_STATEMENT_TIMEOUT) plus the
    /// phone-clock bound (`RestDeltaWindow` adds a second for commit latency and rounding).
    var restDeltaWindow: RestDeltaWindow {
        RestDeltaWindow(longestWrite: .seconds(max(writeTransactionTimeout, databaseStatementTimeout)),
                        clockSkew: .seconds(clientClockSkew))
    }

    /// `pooled`: `conninfo` is DATABASE_URL behind a transaction-mode pooler.
    func poolConfiguration(conninfo: String, pooled: Bool = false) -> PostgresPool.Configuration {
        PostgresPool.Configuration(
            connection: connectionConfiguration(conninfo: conninfo, pooled: pooled),
            size: databasePoolSize,
            acquisitionTimeout: .seconds(databasePoolTimeout)
        )
    }

    /// Every connection sends the sync wake-up itself, right after the commit of a write
    /// (migrations/0026: the writing transaction then does not take the NOTIFY commit lock).
    func connectionConfiguration(conninfo: String, pooled: Bool) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            conninfo: conninfo, statementTimeout: .seconds(databaseStatementTimeout),
            statementCacheCapacity: databaseStatementCacheSize, transactionPooled: pooled,
            afterCommitChannels: [SyncService.channel]
        )
    }
}
