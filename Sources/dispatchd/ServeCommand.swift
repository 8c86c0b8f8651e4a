import API
import Backups
import Accounts
import ArgumentParser
import Foundation
import HTTPServer
import Logging
import Operations
import Postgres
import RouteKit
import Slack
import Store
import Sync
import Webhooks
import Push

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Migrate the database and serve HTTP until SIGINT/SIGTERM."
    )

    @Flag(help: "Do not apply pending migrations (another process does); still refuse a newer schema.")
    var noMigrate = false

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        let configuration = try options.loadOrExit()
        LoggingSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "dispatchd")
        do {
            try serve(configuration: configuration, logger: logger)
        } catch let error as ConfigurationError {
            logger.critical("cannot start: \(error.message)")
            throw ExitCode(2)
        } catch let error as MigrationError {
            logger.critical("cannot start: \(error.message)")
            throw ExitCode(1)
        } catch {
            logger.critical("cannot start: \(String(describing: error))")
            throw ExitCode(1)
        }
    }

    private func serve(configuration: Configuration, logger: Logger) throws {
        // Before anything holds descriptors: the database pool, the listener, the clients.
        Self.raiseOpenFileLimit(logger: logger)
        // Generated before the database starts so a read-only DATA_DIR fails fast.
        let jwtSecret = try configuration.jwtSecret ?? JWTSecretStore.loadOrCreate(in: configuration.dataDirectory)
        let publishableKey = try configuration.publishableKey ?? PublishableKeyStore.loadOrCreate(in: configuration.dataDirectory)

        let session = try DatabaseSession.open(configuration: configuration, pooled: true, logger: logger)
        defer { session.close() }
        let migrator = Migrator(directoryPath: configuration.migrationsDirectory, logger: logger)
        var upToDate = true
        if noMigrate {
            let status = try migrator.status(pool: session.pool)
            try Migrator.refuseInconsistent(status)
            upToDate = status.pending.isEmpty
            if !status.pending.isEmpty {
                logger.warning("database has pending migrations; /readyz answers 503 until they are applied",
                               metadata: ["pending": .stringConvertible(status.pending.count)])
            }
        } else {
            let applied = try session.migrate(migrator)
            logger.info("database migrated", metadata: ["applied": .stringConvertible(applied.count)])
        }
        // Before any cursor is handed out: data that moved to another cluster starts a new epoch.
        if upToDate, let epoch = try DatabaseEpoch.adoptCluster(pool: session.pool) {
            logger.warning("the database now lives in another PostgreSQL cluster (restored by hand or upgraded): new sync epoch, devices resync",
                           metadata: ["epoch": .string(epoch)])
        }
        if configuration.usesTransactionPooler,
           let problem = session.pooledStatementTimeoutProblem(limit: configuration.databaseStatementTimeout) {
            logger.warning("\(problem)")
        }
        let firstAdmin = session.embedded == nil ? nil : try AdminAccount.createFirstIfNeeded(pool: session.pool)

        let mail = try MailWiring.make(configuration: configuration, pool: session.pool, serverSecret: jwtSecret, logger: logger)
        let auth = try AuthService(pool: session.pool, jwtSecret: jwtSecret,
                                   accessTokenTTL: .milliseconds(Int64(configuration.accessTokenTTL * 1000)),
                                   refreshReuseGrace: .milliseconds(Int64(configuration.refreshReuseGrace * 1000)),
                                   kdfConcurrency: configuration.kdfConcurrency ?? PasswordWork.defaultConcurrency,
                                   emailSettings: configuration.emailAuthSettings(outbox: mail.outbox, links: mail.links),
                                   secureCookies: configuration.consoleSecureCookies, logger: logger)
        try auth.start()
        defer { auth.stop() }
        let sync = SyncService(pool: session.pool, listenOn: session.direct, maxPageBytes: configuration.syncPageMaxBytes,
                               logger: logger)
        // From here on (migrations done), no write transaction commits past its time limit.
        session.pool.limitWriteTransactions(to: .seconds(configuration.writeTransactionTimeout))
        var application = APIApplication(readiness: DatabaseReadinessCheck(pool: session.pool, migrator: migrator), auth: auth,
                                         pool: session.pool, sync: sync,
                                         listPaging: ListPaging(maxBytes: configuration.listPageMaxBytes),
                                         trustedProxies: configuration.trustedProxies, publishableKey: publishableKey,
                                         realtimePublicBroadcast: configuration.webSocket.realtimePublicBroadcast,
                                         serverSecret: jwtSecret)
        application.restDelta = configuration.restDeltaWindow
        application.mailSender = mail.sender
        var slackSettings = SlackSettings(hooksBaseURL: configuration.slackHooksBaseURL)
        // Longer than any write transaction may live, so no history row is missed (SlackEventScan).
        slackSettings.lookBack = .seconds(Int64(configuration.writeTransactionTimeout.rounded(.up)) + 5)
        let slack = SlackService(pool: session.pool, serverSecret: jwtSecret, links: mail.links, settings: slackSettings,
                                 logger: logger)
        application.slack = slack
        let webhookSender = application.webhooks.map { configuration.webhooks.sender(service: $0, outbox: mail.outbox, logger: logger) }
        application.webhookSender = webhookSender
        let pushSender = application.push.flatMap { push in
            application.sync.map { configuration.push.sender(service: push, sync: $0, logger: logger) }
        }
        application.pushSender = pushSender
        application.publicURLIsSet = configuration.mail.publicURL != nil
        let backups = configuration.backupService(
            target: session.target, keys: BackupKeyring(secret: configuration.backup.key ?? jwtSecret, previous: configuration.backup.previousKeys),
            pool: session.pool, logger: logger)
        backups.markInterrupted()
        let dailyBackups = configuration.backup.daily ? DailyBackups(service: backups) : nil
        application.backups = dailyBackups == nil ? nil : backups.status
        let console = try ConsoleWiring(application: application, auth: auth, pool: session.pool, migrator: migrator,
                                        configuration: configuration, backups: backups, mail: mail.console)
        let server = HTTPServer(
            configuration: configuration.httpServerConfiguration,
            responder: console.router,
            middleware: console.middleware,
            logger: logger
        )
        application.metrics.setServerMetricsSource { server.metrics }
        application.sync?.start()
        defer { application.sync?.stop() }
        dailyBackups?.start()
        defer { dailyBackups?.stop() }
        defer { application.realtime?.stop() }
        // SIGTERM/SIGINT → graceful HTTP shutdown; `waitUntilStopped` then returns and the
        // deferred session close stops the embedded PostgreSQL before exiting 0.
        server.installSignalHandlers()
        try server.start()
        let url = ServeBanner.url(host: configuration.host, port: server.boundPort)
        console.heartbeat.listening(on: ConsoleWiring.address(port: server.boundPort))
        console.heartbeat.start()
        defer { console.heartbeat.stop() }
        // Before the first request is read: links in mail default to the listener's URL.
        mail.links.resolveDefault(listenerURL: url)
        mail.sender.start()
        defer { mail.sender.stop() }
        slack.start()
        defer { slack.stop() }
        webhookSender?.start()
        defer { webhookSender?.stop() }
        pushSender?.start()
        defer { pushSender?.stop() }
        logger.info("listening", metadata: ["url": .string(url),
                                            "max_connections": .stringConvertible(server.configuration.maxConnections)])
        // Written unbuffered: stdout is block-buffered when it is a pipe (docker logs, scripts).
        FileHandle.standardOutput.write(Data((ServeBanner.text(url: url, firstAdmin: firstAdmin, publishableKey: publishableKey) + "\n").utf8))
        server.waitUntilStopped()
        logger.info("server stopped")
    }

    /// The soft RLIMIT_NOFILE up to the hard one (`OpenFileLimit`), logged with both, so an
    /// operator sees how many connections the process can hold.
    static func raiseOpenFileLimit(logger: Logger) {
        guard let outcome = OpenFileLimit.raiseSoftToHard() else {
            logger.warning("cannot read the open file limit (RLIMIT_NOFILE)")
            return
        }
        var metadata: Logger.Metadata = ["soft": .stringConvertible(Int(clamping: outcome.after.soft)),
                                         "hard": .stringConvertible(Int(clamping: outcome.after.hard)),
                                         "soft_at_start": .stringConvertible(Int(clamping: outcome.before.soft))]
        if let failure = outcome.failure {
            metadata["errno"] = .stringConvertible(Int(failure))
            logger.warning("cannot raise the open file limit to the hard limit", metadata: metadata)
        } else {
            logger.info("open file limit", metadata: metadata)
        }
    }
}
