extension PostgresConnection {
    /// How to reach the server and which session settings to apply right after connecting.
    public struct Configuration: Sendable {
        /// A libpq conninfo string (`host=/tmp/s port=5432 dbname=app`) or URI
        /// (`postgres://user:pass@host:5432/db?sslmode=require`; unix sockets as
        /// `postgres:///db?host=/var/run/postgresql` or a percent-encoded host
        /// `postgres://%2Fvar%2Frun%2Fpostgresql/db`). libpq parses both forms.
        public var conninfo: String
        /// Used unless the conninfo sets `application_name` itself.
        public var applicationName: String
        /// libpq's `connect_timeout` (whole seconds, at least 2 — libpq's minimum). Overrides the conninfo.
        public var connectTimeout: Duration
        /// `statement_timeout`; nil leaves the server default.
        public var statementTimeout: Duration?
        /// `idle_in_transaction_session_timeout`; nil leaves the server default.
        public var idleInTransactionSessionTimeout: Duration?
        /// Session `TimeZone`; UTC keeps timestamptz output unambiguous.
        public var timeZone: String?
        /// Statements each connection keeps prepared (least recently used evicted); 0 runs
        /// every statement unnamed, e.g. behind a transaction-pooling PgBouncer older than
        /// 1.21, which cannot follow named statements across server connections.
        public var statementCacheCapacity: Int
        /// The conninfo reaches PostgreSQL through a transaction-pooling PgBouncer: no named
        /// statements whatever `statementCacheCapacity` says, and the settings above go with
        /// each transaction instead of the session (`PostgresConnection+TransactionPooling`).
        /// Never for LISTEN or session advisory locks: those need a direct connection.
        public var transactionPooled: Bool
        /// Channels this session notifies *after* the commit of a transaction that asks for it,
        /// instead of the transaction notifying at its commit (`+AfterCommitNotify.swift`;
        /// migrations/0026). Empty: the session never asks, writers notify in-transaction.
        public var afterCommitChannels: Set<String>

        public init(
            conninfo: String,
            applicationName: String = "dispatchd",
            connectTimeout: Duration = .seconds(2),
            statementTimeout: Duration? = .seconds(30),
            idleInTransactionSessionTimeout: Duration? = .seconds(60),
            timeZone: String? = "UTC",
            statementCacheCapacity: Int = 256,
            transactionPooled: Bool = false,
            afterCommitChannels: Set<String> = []
        ) {
            self.conninfo = conninfo
            self.applicationName = applicationName
            self.connectTimeout = connectTimeout
            self.statementTimeout = statementTimeout
            self.idleInTransactionSessionTimeout = idleInTransactionSessionTimeout
            self.timeZone = timeZone
            self.statementCacheCapacity = statementCacheCapacity
            self.transactionPooled = transactionPooled
            self.afterCommitChannels = afterCommitChannels
        }
    }

    /// Transaction state as reported by libpq after the last command.
    public enum TransactionStatus: Sendable {
        case idle, active, inTransaction, inFailedTransaction, unknown
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a tiny positive timeout never becomes 0 ("disabled").
    var postgresMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let remainder = attoseconds % 1_000_000_000_000_000
        return remainder > 0 ? millis + 1 : millis
    }
}
