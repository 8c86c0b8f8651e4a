import ArgumentParser
import Foundation
import Logging
import Postgres

struct CreateAdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-admin",
        abstract: "Create an administrator account (migrating first). Prints a generated password if none is given."
    )

    @Option(help: "The administrator's email address.")
    var email: String

    @Option(help: "The administrator's display name.")
    var name: String

    @Option(help: "Password (at least 8 characters). Omit it to have a strong one generated and printed.")
    var password: String?

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        let configuration = try options.loadOrExit()
        LoggingSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "dispatchd")
        do {
            try DatabaseSession.run(configuration: configuration, logger: logger) { pool in
                try Migrator(directoryPath: configuration.migrationsDirectory, logger: logger).migrate(pool: pool)
                let created = try AdminAccount.create(email: email, name: name, password: password, pool: pool)
                print("Created admin \(created.email) (id \(created.id)).")
                if let generated = created.generatedPassword { print("Password: \(generated)") }
            }
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("dispatchd: \(error.message)\n".utf8))
            throw ExitCode(2)
        } catch let error as AdminAccount.Failure {
            FileHandle.standardError.write(Data("dispatchd: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
    }
}
