@testable import dispatchd
import Console
import Foundation
import Operations
import Testing

/// What the overview is told about backups: the newest backup file in the directory (by name,
/// which is by time), its time and size, and whether this process's last scheduled attempt
/// failed; verification stays unknown, since nothing records `restore --verify` runs.
@Suite struct BackupOverviewTests {
    @Test func theNewestBackupFileAndTheLastAttemptAreReported() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backup-overview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let status = BackupStatus()
        let overview = BackupOverview(directory: directory.path, scheduled: true, status: status)
        #expect(overview.summary() == ConsoleBackupSummary(scheduled: true), "no file: no backup recorded")

        let older = BackupMaker.fileName(at: Date(timeIntervalSince1970: 1_800_000_000))
        let newer = BackupMaker.fileName(at: Date(timeIntervalSince1970: 1_800_086_400))
        try Data(count: 10).write(to: directory.appendingPathComponent(newer))
        try Data(count: 3).write(to: directory.appendingPathComponent(older))
        try Data(count: 99).write(to: directory.appendingPathComponent("notes.txt"))
        status.record(.init(finishedAt: Date(), succeeded: false))
        let summary = overview.summary()
        #expect(summary.latestName == newer && summary.latestBytes == 10)
        #expect(summary.latestAt.map { abs($0.timeIntervalSinceNow) < 3600 } == true, "the file's modification time")
        #expect(summary.lastAttemptFailed && summary.verified == nil && summary.scheduled)
    }
}
