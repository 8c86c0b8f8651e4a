import ArgumentParser
import Backups
import Foundation
import Logging

/// `dispatchd restore FILE`: into the configured database (empty, or `--force`);
/// `dispatchd restore --verify FILE`: into a scratch database, compared with the manifest,
/// then dropped. Exit 0 only when everything matched.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup file into the configured (empty) database, or --verify it in a scratch database.")

    @Argument(help: "A file written by `dispatchd backup`.")
    var file: String

    @Flag(help: "Restore into a scratch database, compare it with the manifest, drop it. Changes nothing else.")
    var verify = false

    @Flag(help: "Replace a database that holds data: drops its schema and everything in it first.")
    var force = false

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        if verify && force { throw ValidationError("--verify and --force exclude each other") }
        let configuration = try options.loadOrExit()
        LoggingSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "dispatchd")
        let report: Restorer.Report
        do {
            // Checked before the database is started or connected to: a file this
            // installation did not sign is refused with nothing touched.
            let backup = try CheckedBackup.open(URL(fileURLWithPath: file), keys: try BackupKeyring.load(configuration, creating: false))
            defer { backup.remove() }
            let session = try DatabaseSession.open(configuration: configuration, logger: logger)
            defer { session.close() }
            let restorer = Restorer(target: session.target, migrationsDirectory: configuration.migrationsDirectory, logger: logger)
            report = verify ? try restorer.verify(backup) : try restorer.restore(backup, force: force)
        } catch {
            FileHandle.standardError.write(Data("dispatchd restore: \(error)\n".utf8))
            throw ExitCode(1)
        }
        for line in report.lines { print(line) }
        guard report.problems.isEmpty else {
            for problem in report.problems { FileHandle.standardError.write(Data("dispatchd restore: \(problem)\n".utf8)) }
            throw ExitCode(1)
        }
    }
}
