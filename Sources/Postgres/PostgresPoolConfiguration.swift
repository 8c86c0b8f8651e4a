extension PostgresPool {
    public struct Configuration: Sendable {
        /// Connection settings for every pooled connection (conninfo/URL, timeouts, time zone).
        public var connection: PostgresConnection.Configuration
        /// Maximum number of open connections.
        public var size: Int
        /// How long `withConnection` waits for a free connection before `.poolTimeout`.
        public var acquisitionTimeout: Duration

        public init(
            conninfo: String,
            size: Int = 10,
            acquisitionTimeout: Duration = .seconds(5),
            connectTimeout: Duration = .seconds(2),
            statementTimeout: Duration? = .seconds(30),
            idleInTransactionSessionTimeout: Duration? = .seconds(60),
            applicationName: String = "dispatchd"
        ) {
            self.connection = PostgresConnection.Configuration(
                conninfo: conninfo,
                applicationName: applicationName,
                connectTimeout: connectTimeout,
                statementTimeout: statementTimeout,
                idleInTransactionSessionTimeout: idleInTransactionSessionTimeout)
            self.size = max(1, size)
            self.acquisitionTimeout = acquisitionTimeout
        }

        public init(connection: PostgresConnection.Configuration, size: Int = 10, acquisitionTimeout: Duration = .seconds(5)) {
            self.connection = connection
            self.size = max(1, size)
            self.acquisitionTimeout = acquisitionTimeout
        }
    }

    /// A snapshot for metrics.
    public struct Stats: Sendable, Equatable {
        public var open: Int
        public var inUse: Int
        public var idle: Int
        public var waiting: Int

        public init(open: Int, inUse: Int, idle: Int, waiting: Int) {
            self.open = open
            self.inUse = inUse
            self.idle = idle
            self.waiting = waiting
        }
    }
}
