import ArgumentParser
import Logging
import Postgres

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply pending migrations and exit."
    )

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        let configuration = try options.loadOrExit()
        LoggingSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "dispatchd")
        try DatabaseSession.run(configuration: configuration, logger: logger) { pool in
            let applied = try Migrator(directoryPath: configuration.migrationsDirectory, logger: logger).migrate(pool: pool)
            logger.info("migrations applied", metadata: ["count": .stringConvertible(applied.count)])
        }
    }
}
