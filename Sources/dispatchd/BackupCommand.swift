import ArgumentParser
import Backups
import Foundation
import Logging

/// `dispatchd backup [--output FILE] [--keep N]`: one consistent backup file (BackupMaker);
/// the last line printed is its path, for scripts.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the database into one file (pg_dump custom format and a signed manifest); prints its path last.")

    @Option(help: "The file to write (default: BACKUP_DIR/dispatch-backup-<UTC time>.tar).")
    var output: String?

    @Option(help: "Backups to keep in the file's directory, newest first; 0 keeps all (env BACKUP_KEEP, default 7).")
    var keep: Int?

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        let configuration = try options.loadOrExit()
        LoggingSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "dispatchd")
        if let keep, keep < 0 { throw ValidationError("--keep must be 0 or more") }
        do {
            let keys = try BackupKeyring.load(configuration, creating: true)
            let session = try DatabaseSession.open(configuration: configuration, logger: logger)
            defer { session.close() }
            let file = output.map { URL(fileURLWithPath: $0) }
            var settings = configuration
            settings.backup.keep = keep ?? configuration.backup.keep
            if let file { settings.backup.directory = file.deletingLastPathComponent().path }
            // Recorded for the console's Backups page when the database has that table (0038).
            let recorded = try? session.pool.query("SELECT to_regclass('backup_runs') IS NOT NULL AS present").first?.decode("present", as: Bool.self)
            let service = settings.backupService(target: session.target, keys: keys, pool: recorded == true ? session.pool : nil, logger: logger)
            let (written, manifest) = try service.backUp(by: .command, to: file)
            logger.info("backup written", metadata: ["file": .string(written.path), "tables": .stringConvertible(manifest.rowCounts.count),
                                                     "schema_version": .stringConvertible(manifest.schemaVersion)])
            print(written.standardizedFileURL.path)
        } catch {
            // One line, the same for every failure (BackupError, the database, the filesystem).
            FileHandle.standardError.write(Data("dispatchd backup: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
