import Console
import Foundation
import Operations

/// What the console's overview can honestly say about backups from here: the newest backup
/// file in BACKUP_DIR (its name, when it was written and its size, from the file system) and
/// whether this process's last scheduled attempt failed. Nothing records `restore --verify`
/// runs, so verification stays unknown (nil) until something does.
struct BackupOverview: Sendable {
    let directory: URL
    let scheduled: Bool
    let status: BackupStatus?

    init(directory: String, scheduled: Bool, status: BackupStatus?) {
        self.directory = URL(fileURLWithPath: directory)
        self.scheduled = scheduled
        self.status = status
    }

    func summary() -> ConsoleBackupSummary {
        var summary = ConsoleBackupSummary(scheduled: scheduled)
        summary.lastAttemptFailed = status?.snapshot.last?.succeeded == false
        guard let newest = BackupRetention.backups(in: directory).last else { return summary }
        let attributes = try? FileManager.default.attributesOfItem(atPath: newest.path)
        summary.latestName = newest.lastPathComponent
        summary.latestAt = attributes?[.modificationDate] as? Date
        summary.latestBytes = (attributes?[.size] as? NSNumber)?.intValue
        return summary
    }
}
