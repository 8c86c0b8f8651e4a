import Backups
import Console
import Foundation

/// What the console's overview says about backups: the newest backup file in BACKUP_DIR (its
/// name, when it was written and its size, from the file system, so a file copied in by hand
/// counts too), the latest verification recorded for it (`backup_runs`), and whether this
/// process's last scheduled attempt failed.
struct BackupOverview: Sendable {
    let service: BackupService
    let scheduled: Bool

    func summary() -> ConsoleBackupSummary {
        var summary = ConsoleBackupSummary(scheduled: scheduled)
        summary.lastAttemptFailed = service.status.snapshot.last?.succeeded == false
        guard let newest = BackupRetention.backups(in: service.directory).last else { return summary }
        let attributes = try? FileManager.default.attributesOfItem(atPath: newest.path)
        summary.latestName = newest.lastPathComponent
        summary.latestAt = attributes?[.modificationDate] as? Date
        summary.latestBytes = (attributes?[.size] as? NSNumber)?.intValue
        // A verify still running (or interrupted) says nothing yet either way.
        let listed = (try? service.recent())?.first { $0.backup.file == newest.lastPathComponent }
        if let verify = listed?.verify, verify.state == "succeeded" || verify.state == "failed" {
            summary.verified = verify.state == "succeeded"
            summary.verifiedAt = verify.finishedAt
        }
        return summary
    }
}
