import Foundation
import Logging
import Operations
import Postgres
import ServiceKit
import Store
import Synchronization

/// Backups as a service: the daily schedule, `dispatchd backup` and the console's "Back up
/// now" and "Verify" all run through it, so each run is recorded the same way (`backup_runs`,
/// migration 0038: who asked, when, how it ended) and only one runs at a time per server.
/// Restoring is not here: it replaces the database a running server uses, so only the
/// `dispatchd restore` command does it, with every server stopped.
package final class BackupService: Sendable {
    /// Who asked for a run: the schedule, an administrator in the console, or the command line.
    package struct Requester: Sendable {
        package var source: String
        package var userID: UUID?
        package var email: String?

        package static let schedule = Requester(source: "schedule", userID: nil, email: nil)
        package static let command = Requester(source: "command", userID: nil, email: nil)

        package static func console(userID: UUID, email: String) -> Requester {
            Requester(source: "console", userID: userID, email: email)
        }
    }

    /// BACKUP_DIR: every backup of this server is a file here.
    package let directory: URL
    /// The status `/readyz` and `/metrics` report: any successful backup counts, whoever asked.
    package let status: BackupStatus
    /// `dispatchd restore --force` as this deployment runs it (path and environment); the
    /// backup's path goes last.
    package let restoreCommand: String
    let maker: BackupMaker
    let restorer: Restorer
    let keys: BackupKeyring
    let keep: Int
    let runs: BackupRunStore?
    let instance: String
    let logger: Logger
    private let busy = Mutex(false)

    /// `pool`: where runs are recorded (nil: not recorded, for a database not yet migrated).
    package init(target: DatabaseTarget, keys: BackupKeyring, migrationsDirectory: String, directory: String, keep: Int,
                 pool: PostgresPool?, restoreCommand: String, status: BackupStatus = BackupStatus(), logger: Logger) {
        maker = BackupMaker(target: target, keys: keys)
        restorer = Restorer(target: target, migrationsDirectory: migrationsDirectory, logger: logger)
        self.keys = keys
        self.directory = URL(fileURLWithPath: directory)
        self.keep = keep
        runs = pool.map(BackupRunStore.init)
        self.restoreCommand = restoreCommand
        self.status = status
        instance = ProcessInfo.processInfo.hostName
        self.logger = logger
    }

    /// At server start: runs this host left unfinished when it last stopped are marked failed.
    package func markInterrupted() {
        do { try runs?.abandon(instance: instance) } catch {
            logger.warning("could not mark interrupted backup runs", metadata: ["error": .string(String(describing: error))])
        }
    }

    /// Takes a backup now on the caller's thread, then applies BACKUP_KEEP. `file` nil: a new
    /// file in BACKUP_DIR named after the time.
    @discardableResult
    package func backUp(by requester: Requester, to file: URL? = nil, now: Date = Date()) throws -> (file: URL, manifest: BackupManifest) {
        let file = file ?? directory.appendingPathComponent(BackupMaker.fileName(at: now))
        try claim()
        defer { release() }
        let id = record { try $0.start(kind: "backup", file: file.lastPathComponent, source: requester.source,
                                       requestedBy: requester.userID, email: requester.email, instance: instance) }
        return try runBackup(id, file, requester)
    }

    /// "Back up now": records the run, then takes the backup on a thread of its own; the page
    /// shows the run until it ends. Refused while another backup or verify runs here.
    package func startBackup(by requester: Requester, now: Date = Date()) throws -> UUID {
        let file = directory.appendingPathComponent(BackupMaker.fileName(at: now))
        return try startInBackground(kind: "backup", file: file, requester: requester) { [self] id in
            _ = try? runBackup(id, file, requester)
        }
    }

    /// "Verify": restores the backup into a scratch database, compares it with its manifest,
    /// drops it (`Restorer.verify`), on a thread of its own.
    package func startVerify(name: String, by requester: Requester) throws -> UUID {
        guard let file = backupFile(named: name) else { throw BackupError("No backup named \(name) is in the backup directory.") }
        return try startInBackground(kind: "verify", file: file, requester: requester) { [self] id in
            runVerify(id, file)
        }
    }

    /// The command that restores the backup `name` of BACKUP_DIR, ready to paste.
    package func restoreCommand(for name: String) -> String {
        "\(restoreCommand) \(ShellWord.quoted(directory.appendingPathComponent(name).path))"
    }

    /// A backup file of BACKUP_DIR by its name, only when it is one (never a path elsewhere).
    package func backupFile(named name: String) -> URL? {
        BackupRetention.backups(in: directory).first { $0.lastPathComponent == name }
    }

    /// The newest recorded backups with their latest verify.
    package func recent() throws -> [BackupRunStore.Listed] {
        try runs?.recent() ?? []
    }

    /// Whether a backup or verify is under way on any server.
    package func isRunning() throws -> Bool {
        try runs?.running() ?? busy.withLock { $0 }
    }

    private func startInBackground(kind: String, file: URL, requester: Requester,
                                   _ work: @escaping @Sendable (UUID?) -> Void) throws -> UUID {
        try claim()
        let id: UUID
        do {
            guard let runs else { throw BackupError("Backups are not recorded on this server.") }
            id = try runs.start(kind: kind, file: file.lastPathComponent, source: requester.source,
                                requestedBy: requester.userID, email: requester.email, instance: instance)
        } catch {
            release()
            throw error
        }
        BackgroundThread.start(name: "backup-\(kind)") { [self] in
            defer { release() }
            work(id)
        }
        return id
    }

    private func runBackup(_ id: UUID?, _ file: URL, _ requester: Requester) throws -> (file: URL, manifest: BackupManifest) {
        do {
            let manifest = try maker.make(to: file)
            let removed = try BackupRetention.prune(file.deletingLastPathComponent(), keep: keep)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
            let rows = manifest.rowCounts.values.reduce(0, +)
            logger.info("\(requester.source == "schedule" ? "daily backup" : "backup") written", metadata: ["file": .string(file.path), "rows": .stringConvertible(rows),
                                                     "removed_old": .stringConvertible(removed.count)])
            status.record(.init(finishedAt: Date(), succeeded: true))
            finish(id, succeeded: true, bytes: bytes, rows: Int64(rows),
                   detail: "\(manifest.rowCounts.count) tables, \(rows) rows, schema version \(manifest.schemaVersion)")
            return (file, manifest)
        } catch {
            logger.error("\(requester.source == "schedule" ? "daily backup" : "backup") failed", metadata: ["file": .string(file.path), "error": .string(String(describing: error))])
            status.record(.init(finishedAt: Date(), succeeded: false))
            finish(id, succeeded: false, bytes: nil, rows: nil, detail: String(describing: error))
            throw error
        }
    }

    private func runVerify(_ id: UUID?, _ file: URL) {
        do {
            let backup = try CheckedBackup.open(file, keys: keys)
            defer { backup.remove() }
            let report = try restorer.verify(backup)
            logger.info("backup verified", metadata: ["file": .string(file.path), "problems": .stringConvertible(report.problems.count)])
            finish(id, succeeded: report.problems.isEmpty, bytes: nil, rows: Int64(backup.manifest.rowCounts.values.reduce(0, +)),
                   detail: (report.lines + report.problems).joined(separator: "\n"))
        } catch {
            logger.error("backup verify failed", metadata: ["file": .string(file.path), "error": .string(String(describing: error))])
            finish(id, succeeded: false, bytes: nil, rows: nil, detail: String(describing: error))
        }
    }

    private func claim() throws {
        let taken = busy.withLock { busy in
            defer { busy = true }
            return busy
        }
        if taken { throw BackupError("A backup or verify is already running on this server; wait for it to end.") }
    }

    private func release() {
        busy.withLock { $0 = false }
    }

    private func record(_ start: (BackupRunStore) throws -> UUID) -> UUID? {
        guard let runs else { return nil }
        do { return try start(runs) } catch {
            // The backup matters more than its record: a database not yet migrated still gets one.
            logger.warning("backup run not recorded", metadata: ["error": .string(String(describing: error))])
            return nil
        }
    }

    private func finish(_ id: UUID?, succeeded: Bool, bytes: Int64?, rows: Int64?, detail: String) {
        guard let id, let runs else { return }
        do { try runs.finish(id, succeeded: succeeded, fileBytes: bytes, rowCount: rows, detail: detail) } catch {
            logger.warning("backup run not recorded", metadata: ["error": .string(String(describing: error))])
        }
    }
}
