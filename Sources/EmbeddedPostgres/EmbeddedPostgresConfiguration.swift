extension EmbeddedPostgres {
    public struct Configuration: Sendable {
        /// The cluster's data directory; initdb runs when it has no `PG_VERSION`.
        public var dataDirectory: String
        /// Where the server's unix socket lives. nil: a short private directory under /tmp
        /// derived from the data directory, so a restarted process finds a running server.
        public var socketDirectory: String?
        /// Only names the socket file (`.s.PGSQL.<port>`): TCP is disabled.
        public var port: Int
        /// Turn off for throw-away test clusters only: a crash can corrupt the data.
        public var fsync: Bool
        /// Extra server settings passed as `-c name=value`.
        public var settings: [String: String]
        /// Directory containing initdb/pg_ctl/postgres; nil searches the usual places.
        public var binDirectory: String?
        /// The OS account that runs the server when this process is root.
        public var osUser: String

        public init(
            dataDirectory: String,
            socketDirectory: String? = nil,
            port: Int = 5432,
            fsync: Bool = true,
            settings: [String: String] = [:],
            binDirectory: String? = nil,
            osUser: String = "postgres"
        ) {
            self.dataDirectory = dataDirectory
            self.socketDirectory = socketDirectory
            self.port = port
            self.fsync = fsync
            self.settings = settings
            self.binDirectory = binDirectory
            self.osUser = osUser
        }
    }
}
