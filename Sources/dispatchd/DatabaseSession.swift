import EmbeddedPostgres
import Foundation
import Logging
import Postgres

/// The database a command works against: the configured DATABASE_URL, or an embedded
/// PostgreSQL under DATA_DIR started for the lifetime of the session.
final class DatabaseSession {
    let pool: PostgresPool
    let embedded: EmbeddedPostgres?
    /// The same database for PostgreSQL's own tools (backup, restore).
    let target: DatabaseTarget
    /// False when the embedded server was already running and the caller asked to leave such
    /// a server alone (a `backup` beside a running `serve`): closing then keeps it running.
    private let ownsEmbedded: Bool
    private let logger: Logger

    private init(pool: PostgresPool, embedded: EmbeddedPostgres?, target: DatabaseTarget, ownsEmbedded: Bool, logger: Logger) {
        self.pool = pool
        self.embedded = embedded
        self.target = target
        self.ownsEmbedded = ownsEmbedded
        self.logger = logger
    }

    static func open(configuration: Configuration, logger: Logger, leavesRunningServer: Bool = false) throws -> DatabaseSession {
        if let url = configuration.databaseURL {
            return DatabaseSession(pool: PostgresPool(configuration: configuration.poolConfiguration(conninfo: url)),
                                   embedded: nil, target: DatabaseTarget(conninfo: url), ownsEmbedded: false, logger: logger)
        }
        let directory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path + "/postgres"
        logger.info("starting embedded PostgreSQL", metadata: ["data_dir": .string(directory)])
        let embedded = try EmbeddedPostgres(configuration: .init(dataDirectory: directory), logger: logger)
        let wasRunning = embedded.isRunning
        try embedded.start()
        let conninfo = embedded.conninfo(database: "postgres")
        return DatabaseSession(pool: PostgresPool(configuration: configuration.poolConfiguration(conninfo: conninfo)),
                               embedded: embedded, target: DatabaseTarget(conninfo: conninfo), ownsEmbedded: !(wasRunning && leavesRunningServer), logger: logger)
    }

    /// Opens a session, runs `body`, and always closes it (stopping an embedded database).
    static func run(configuration: Configuration, logger: Logger, _ body: (PostgresPool) throws -> Void) throws {
        let session = try open(configuration: configuration, logger: logger)
        defer { session.close() }
        try body(session.pool)
    }

    func close() {
        pool.close()
        guard let embedded, ownsEmbedded else { return }
        do {
            try embedded.stop()
            logger.info("embedded PostgreSQL stopped")
        } catch {
            logger.error("could not stop embedded PostgreSQL", metadata: ["error": .string(String(describing: error))])
        }
    }
}
