import API
import Foundation
import Logging
import Operations
import ServiceKit
import Synchronization

/// `serve`'s daily backup (BACKUP_DAILY; on by default with the embedded database): at start
/// and then hourly it takes a backup when BACKUP_DIR holds none of the current UTC day, then
/// applies BACKUP_KEEP. So a newcomer's data has a backup from the first day, and a server
/// that was down at midnight catches up within the hour. Outcomes go to `BackupStatus`
/// (`/metrics`, `/readyz`) and the log.
final class DailyBackups: Sendable {
    static let checkInterval: Duration = .seconds(3600)

    private let maker: BackupMaker
    private let directory: URL
    private let keep: Int
    let status: BackupStatus
    private let logger: Logger
    private let loop = BackgroundLoop(name: "daily-backups")

    init(maker: BackupMaker, directory: String, keep: Int, status: BackupStatus, logger: Logger) {
        self.maker = maker
        self.directory = URL(fileURLWithPath: directory)
        self.keep = keep
        self.status = status
        self.logger = logger
    }

    func start() {
        loop.startEvery(Self.checkInterval, immediately: true) { [self] in runIfDue(now: Date()) }
    }

    /// Stops the schedule; waits for a backup in progress to end.
    func stop() {
        loop.stop()
    }

    /// Takes today's backup unless one exists.
    func runIfDue(now: Date) {
        let today = BackupMaker.filePrefix + BackupMaker.dayStamp(now)
        guard !BackupRetention.backups(in: directory).contains(where: { $0.lastPathComponent.hasPrefix(today) }) else { return }
        let file = directory.appendingPathComponent(BackupMaker.fileName(at: now))
        do {
            let manifest = try maker.make(to: file)
            let removed = try BackupRetention.prune(directory, keep: keep)
            logger.info("daily backup written", metadata: ["file": .string(file.path), "rows": .stringConvertible(manifest.rowCounts.values.reduce(0, +)),
                                                           "removed_old": .stringConvertible(removed.count)])
            status.record(.init(finishedAt: Date(), succeeded: true))
        } catch {
            logger.error("daily backup failed", metadata: ["error": .string(String(describing: error))])
            // The reason goes to the log only: /readyz, which anyone may call, says only
            // whether a backup is fresh.
            status.record(.init(finishedAt: Date(), succeeded: false))
        }
    }
}
