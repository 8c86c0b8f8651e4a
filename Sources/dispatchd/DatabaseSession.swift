import Backups
import EmbeddedPostgres
import Foundation
import Logging
import Postgres

/// The database a command works against: the configured DATABASE_URL, or an embedded
/// PostgreSQL under DATA_DIR started for the lifetime of the session.
final class DatabaseSession {
    let pool: PostgresPool
    /// PostgreSQL without a pooler in between (DATABASE_DIRECT_URL, else the pool's own
    /// settings): for LISTEN and the migrator's session advisory lock.
    let direct: PostgresConnection.Configuration
    let embedded: EmbeddedPostgres?
    /// The same database for PostgreSQL's own tools (backup, restore).
    let target: DatabaseTarget
    /// Whether this session started the embedded server. Only then does closing stop it: a
    /// server found running belongs to whoever started it (a `serve`, say), and a one-off
    /// command beside it (`create-admin`, `migrate`, `backup`, …) must leave it as it was.
    private let ownsEmbedded: Bool
    private let logger: Logger

    private init(pool: PostgresPool, direct: PostgresConnection.Configuration, embedded: EmbeddedPostgres?,
                 target: DatabaseTarget, ownsEmbedded: Bool, logger: Logger) {
        self.pool = pool
        self.direct = direct
        self.embedded = embedded
        self.target = target
        self.ownsEmbedded = ownsEmbedded
        self.logger = logger
    }

    /// `pooled`: the pool goes through DATABASE_URL even when that is a transaction pooler
    /// (`serve`); otherwise (one-shot commands, which set session state and take session
    /// locks) everything goes to DATABASE_DIRECT_URL when it is set.
    static func open(configuration: Configuration, pooled: Bool = false, logger: Logger) throws -> DatabaseSession {
        if let url = configuration.databaseURL {
            let directURL = configuration.databaseDirectURL ?? url
            let direct = configuration.connectionConfiguration(conninfo: directURL, pooled: false)
            let usePooler = pooled && configuration.usesTransactionPooler
            let pool = PostgresPool(configuration: usePooler
                ? configuration.poolConfiguration(conninfo: url, pooled: true)
                : PostgresPool.Configuration(connection: direct, size: configuration.databasePoolSize,
                                             acquisitionTimeout: .seconds(configuration.databasePoolTimeout)))
            // pg_dump and pg_restore hold session state too: they go to PostgreSQL directly.
            return DatabaseSession(pool: pool, direct: direct, embedded: nil, target: DatabaseTarget(conninfo: directURL),
                                   ownsEmbedded: false, logger: logger)
        }
        let directory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path + "/postgres"
        logger.info("starting embedded PostgreSQL", metadata: ["data_dir": .string(directory)])
        let embedded = try EmbeddedPostgres(configuration: .init(dataDirectory: directory), logger: logger)
        let started = try embedded.start()
        let conninfo = embedded.conninfo(database: "postgres")
        let pool = PostgresPool(configuration: configuration.poolConfiguration(conninfo: conninfo))
        return DatabaseSession(pool: pool, direct: pool.configuration.connection, embedded: embedded,
                               target: DatabaseTarget(conninfo: conninfo), ownsEmbedded: started,
                               logger: logger)
    }

    /// Opens a session, runs `body`, and always closes it (stopping an embedded database it
    /// started).
    static func run(configuration: Configuration, logger: Logger, _ body: (PostgresPool) throws -> Void) throws {
        let session = try open(configuration: configuration, logger: logger)
        defer { session.close() }
        try body(session.pool)
    }

    /// Applies pending migrations over one direct connection (the advisory lock is per session).
    func migrate(_ migrator: Migrator) throws -> [MigrationFile] {
        let connection = try PostgresConnection(configuration: direct)
        defer { connection.close() }
        return try migrator.migrate(connection: connection)
    }

    /// Behind a transaction pooler a statement outside a transaction runs with the server's
    /// defaults for the role and database, not DB_STATEMENT_TIMEOUT (no session setting of
    /// ours survives there). /rest/v1 delta polls rely on that bound, so say so when the
    /// default is looser; docs/operators/pooling.md has the fix. Nil: nothing to warn about.
    func pooledStatementTimeoutProblem(limit: Double) -> String? {
        let rows = try? pool.query("SELECT setting::bigint AS ms FROM pg_settings WHERE name = 'statement_timeout'")
        guard let milliseconds = try? rows?.first?.decode("ms", as: Int64.self) else {
            return "cannot read statement_timeout through DATABASE_URL"
        }
        let wanted = Int64((limit * 1000).rounded(.up))
        guard milliseconds == 0 || milliseconds > wanted else { return nil }
        return "statement_timeout through DATABASE_URL is \(milliseconds) ms, not at most DB_STATEMENT_TIMEOUT (\(wanted) ms): "
            + "statements outside a transaction are not bounded; run ALTER ROLE … SET statement_timeout (docs/operators/pooling.md)"
    }

    func close() {
        pool.close()
        guard let embedded else { return }
        guard ownsEmbedded else {
            logger.info("embedded PostgreSQL left running: this process did not start it")
            return
        }
        do {
            try embedded.stop()
            logger.info("embedded PostgreSQL stopped")
        } catch {
            logger.error("could not stop embedded PostgreSQL", metadata: ["error": .string(String(describing: error))])
        }
    }
}
