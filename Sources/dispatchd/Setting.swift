/// Every environment variable `dispatchd` reads: the one list of its settings.
///
/// `EnvironmentReader` takes a `Setting`, never a string, so a setting cannot be read without
/// being listed here; `ConfigurationReferenceTests` compares this list with the table in
/// docs/operators/configuration.md, so it cannot be listed without being documented either.
/// Adding a setting: a case here (raw value = the variable's name), the read in
/// `Configuration.load`, and a row in that table.
enum Setting: String, CaseIterable, Sendable {
    case databaseURL = "DATABASE_URL"
    case databaseDirectURL = "DATABASE_DIRECT_URL"
    case jwtSecret = "JWT_SECRET"
    case publishableKey = "PUBLISHABLE_KEY"
    case host = "HOST"
    case port = "PORT"
    case dataDirectory = "DATA_DIR"
    case migrationsDirectory = "MIGRATIONS_DIR"
    case databasePoolSize = "DB_POOL_SIZE"
    case databasePoolTimeout = "DB_POOL_TIMEOUT"
    case databaseStatementTimeout = "DB_STATEMENT_TIMEOUT"
    case databaseStatementCacheSize = "DB_STATEMENT_CACHE_SIZE"
    case logLevel = "LOG_LEVEL"
    case logFormat = "LOG_FORMAT"
    case httpMaxConnections = "HTTP_MAX_CONNECTIONS"
    case httpMaxBodyBytes = "HTTP_MAX_BODY_BYTES"
    case httpMaxHeaderBytes = "HTTP_MAX_HEADER_BYTES"
    case httpMaxRequestLineBytes = "HTTP_MAX_REQUEST_LINE_BYTES"
    case httpMaxHeaderFields = "HTTP_MAX_HEADER_FIELDS"
    case httpHeaderTimeout = "HTTP_HEADER_TIMEOUT"
    case httpBodyTimeout = "HTTP_BODY_TIMEOUT"
    case httpIdleTimeout = "HTTP_IDLE_TIMEOUT"
    case httpWriteTimeout = "HTTP_WRITE_TIMEOUT"
    case httpWorkers = "HTTP_WORKERS"
    case shutdownTimeout = "SHUTDOWN_TIMEOUT"
    case corsAllowedOrigins = "CORS_ALLOWED_ORIGINS"
    case accessTokenTTL = "ACCESS_TOKEN_TTL"
    case refreshReuseGrace = "REFRESH_REUSE_GRACE"
    case syncPageMaxBytes = "SYNC_PAGE_MAX_BYTES"
    case listPageMaxBytes = "LIST_PAGE_MAX_BYTES"
    case writeTransactionTimeout = "WRITE_TRANSACTION_TIMEOUT"
    case clientClockSkew = "CLIENT_CLOCK_SKEW"
    case trustedProxies = "TRUSTED_PROXIES"
    case kdfConcurrency = "KDF_CONCURRENCY"
    case webSocketMaxFrameBytes = "WS_MAX_FRAME_BYTES"
    case webSocketMaxMessageBytes = "WS_MAX_MESSAGE_BYTES"
    case webSocketMaxFramesPerSecond = "WS_MAX_FRAMES_PER_SECOND"
    case webSocketSendQueueBytes = "WS_SEND_QUEUE_BYTES"
    case webSocketIdleTimeout = "WS_IDLE_TIMEOUT"
    case webSocketPingInterval = "WS_PING_INTERVAL"
    case webSocketPongTimeout = "WS_PONG_TIMEOUT"
    case webSocketCloseTimeout = "WS_CLOSE_TIMEOUT"

    /// The variable's name, as operators write it.
    var name: String { rawValue }
}
