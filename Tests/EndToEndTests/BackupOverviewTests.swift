@testable import dispatchd
import Backups
import Console
import Foundation
import Operations
import Store
import TestSupport
import Testing

/// What the overview is told about backups: the newest backup file in the directory (by name,
/// which is by time), its time and size, whether this process's last scheduled attempt failed,
/// and the latest finished verification recorded for that file.
@Suite struct BackupOverviewTests {
    @Test func theNewestBackupFileItsVerificationAndTheLastAttemptAreReported() throws {
        let database = try TestDatabase.create()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backup-overview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = BackupServiceTests.service(database, directory: directory)
        let overview = BackupOverview(service: service, scheduled: true)
        #expect(overview.summary() == ConsoleBackupSummary(scheduled: true), "no file: no backup recorded")

        let older = BackupMaker.fileName(at: Date(timeIntervalSince1970: 1_800_000_000))
        let newer = BackupMaker.fileName(at: Date(timeIntervalSince1970: 1_800_086_400))
        try Data(count: 10).write(to: directory.appendingPathComponent(newer))
        try Data(count: 3).write(to: directory.appendingPathComponent(older))
        try Data(count: 99).write(to: directory.appendingPathComponent("notes.txt"))
        service.status.record(.init(finishedAt: Date(), succeeded: false))
        var summary = overview.summary()
        #expect(summary.latestName == newer && summary.latestBytes == 10)
        #expect(summary.latestAt.map { abs($0.timeIntervalSinceNow) < 3600 } == true, "the file's modification time")
        #expect(summary.lastAttemptFailed && summary.verified == nil && summary.scheduled, "not verified yet")

        // A verification of the newest file, recorded as the console's Verify records it.
        let runs = BackupRunStore(pool: database.pool)
        let backup = try runs.start(kind: "backup", file: newer, source: "schedule", requestedBy: nil, email: nil, instance: "test")
        try runs.finish(backup, succeeded: true, fileBytes: 10, rowCount: 0, detail: nil)
        let verify = try runs.start(kind: "verify", file: newer, source: "schedule", requestedBy: nil, email: nil, instance: "test")
        summary = overview.summary()
        #expect(summary.verified == nil, "a verify still running says nothing yet")
        try runs.finish(verify, succeeded: false, fileBytes: nil, rowCount: nil, detail: "manifest mismatch")
        summary = overview.summary()
        #expect(summary.verified == false && summary.verifiedAt != nil)
    }
}
