import API
import Foundation
import Logging
import Operations
import Synchronization

/// `serve`'s daily backup (BACKUP_DAILY; on by default with the embedded database): at start
/// and then hourly it takes a backup when BACKUP_DIR holds none of the current UTC day, then
/// applies BACKUP_KEEP. So a newcomer's data has a backup from the first day, and a server
/// that was down at midnight catches up within the hour. Outcomes go to `BackupStatus`
/// (`/metrics`, `/readyz`) and the log.
final class DailyBackups: Sendable {
    static let checkInterval: TimeInterval = 3600

    private let maker: BackupMaker
    private let directory: URL
    private let keep: Int
    let status: BackupStatus
    private let logger: Logger
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Mutex(false)

    init(maker: BackupMaker, directory: String, keep: Int, status: BackupStatus, logger: Logger) {
        self.maker = maker
        self.directory = URL(fileURLWithPath: directory)
        self.keep = keep
        self.status = status
        self.logger = logger
    }

    func start() {
        guard started.withLock({ let was = $0; $0 = true; return !was }) else { return }
        let thread = Thread { [self] in
            repeat {
                runIfDue(now: Date())
            } while stopped.wait(timeout: .now() + Self.checkInterval) == .timedOut
            finished.signal()
        }
        thread.name = "daily-backups"
        thread.start()
    }

    /// Stops the schedule; waits for a backup in progress to end.
    func stop() {
        guard started.withLock({ $0 }) else { return }
        stopped.signal()
        finished.wait()
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
