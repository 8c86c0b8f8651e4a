import Foundation
import ServiceKit

/// `serve`'s daily backup (BACKUP_DAILY; on by default with the embedded database): at start
/// and then hourly it takes a backup when BACKUP_DIR holds none of the current UTC day, then
/// applies BACKUP_KEEP (`BackupService.backUp`). So a newcomer's data has a backup from the
/// first day, and a server that was down at midnight catches up within the hour. Outcomes go
/// to `BackupStatus` (`/metrics`, `/readyz`), `backup_runs` (the console) and the log.
package final class DailyBackups: Sendable {
    package static let checkInterval: Duration = .seconds(3600)

    private let service: BackupService
    private let loop = BackgroundLoop(name: "daily-backups")

    package init(service: BackupService) {
        self.service = service
    }

    package func start() {
        loop.startEvery(Self.checkInterval, immediately: true) { [self] in runIfDue(now: Date()) }
    }

    /// Stops the schedule; waits for a backup in progress to end.
    package func stop() {
        loop.stop()
    }

    /// Takes today's backup unless one exists. A failure is logged and recorded by the
    /// service; the reason never reaches `/readyz`, which anyone may call.
    package func runIfDue(now: Date) {
        let today = BackupMaker.filePrefix + BackupMaker.dayStamp(now)
        guard !BackupRetention.backups(in: service.directory).contains(where: { $0.lastPathComponent.hasPrefix(today) }) else { return }
        _ = try? service.backUp(by: .schedule, now: now)
    }
}
