import Backups
import Foundation
import Logging
import Postgres
import Store
import TestSupport
import Testing

/// The backup service the schedule, the command and the console share: each run recorded in
/// `backup_runs` with who asked and how it ended, a verify on a thread of its own that ends
/// "succeeded" with the restore's report, one run at a time, and only files of BACKUP_DIR.
@Suite struct BackupServiceTests {
    static func service(_ database: TestDatabase, directory: URL) -> BackupService {
        BackupService(target: DatabaseTarget(conninfo: database.conninfo), keys: BackupKeyring(secret: String(repeating: "b", count: 32)),
                      migrationsDirectory: ProjectPaths.migrations, directory: directory.path, keep: 3, pool: database.pool,
                      restoreCommand: "DATA_DIR=/srv/dispatch /usr/local/bin/dispatchd restore --force",
                      logger: Logger(label: "backup-service", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    static func waitUntilFinished(_ id: UUID, _ store: BackupRunStore) throws -> BackupRunStore.Run? {
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            if let run = try store.find(id), run.state != "running" { return run }
            usleep(100_000)
        }
        return try store.find(id)
    }

    @Test func backUpThenVerifyAreRecordedAndOneRunsAtATime() throws {
        let database = try TestDatabase.create()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backup-service-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = Self.service(database, directory: directory)
        let store = BackupRunStore(pool: database.pool)

        let olivia = try UserStore(pool: database.pool).create(email: "olivia@example.com", name: "Olivia", userType: .admin, passwordHash: "x")
        let (file, manifest) = try service.backUp(by: .console(userID: olivia.id, email: olivia.email))
        let listed = try service.recent()
        #expect(listed.count == 1)
        let backup = try #require(listed.first?.backup)
        #expect(backup.file == file.lastPathComponent && backup.state == "succeeded" && backup.source == "console")
        #expect(backup.requestedByEmail == "olivia@example.com")
        #expect((backup.fileBytes ?? 0) > 0 && (backup.databaseBytes ?? 0) > 0)
        #expect(backup.rowCount == Int64(manifest.rowCounts.values.reduce(0, +)))
        #expect(listed.first?.verify == nil, "not verified yet")
        #expect(service.restoreCommand(for: file.lastPathComponent)
            == "DATA_DIR=/srv/dispatch /usr/local/bin/dispatchd restore --force \(directory.path)/\(file.lastPathComponent)")

        // Only a backup of BACKUP_DIR, by its name: never a path elsewhere.
        #expect(service.backupFile(named: "../\(directory.lastPathComponent)/\(file.lastPathComponent)") == nil)
        #expect(throws: BackupError.self) { try service.startVerify(name: "/etc/passwd", by: .schedule) }

        let verify = try service.startVerify(name: file.lastPathComponent, by: .schedule)
        // The claim is taken before startVerify returns: a second run is refused, not queued.
        #expect(throws: BackupError.self) { try service.startBackup(by: .schedule) }
        let finished = try #require(try Self.waitUntilFinished(verify, store))
        #expect(finished.state == "succeeded", "\(finished.detail ?? "")")
        #expect(finished.detail?.contains("verified: restored into scratch database") == true)
        #expect(try service.recent().first?.verify?.id == verify)
        #expect(try service.isRunning() == false)
    }

    @Test func runsLeftRunningByAStoppedServerAreMarkedInterrupted() throws {
        let database = try TestDatabase.create()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backup-service-\(UUID().uuidString)")
        let store = BackupRunStore(pool: database.pool)
        let id = try store.start(kind: "backup", file: "dispatch-backup-x.tar", source: "schedule", requestedBy: nil, email: nil,
                                 instance: ProcessInfo.processInfo.hostName)
        let elsewhere = try store.start(kind: "backup", file: "dispatch-backup-y.tar", source: "schedule", requestedBy: nil, email: nil,
                                        instance: "another-host")
        Self.service(database, directory: directory).markInterrupted()
        #expect(try store.find(id)?.state == "failed")
        #expect(try store.find(id)?.detail?.contains("interrupted") == true)
        #expect(try store.find(elsewhere)?.state == "running", "another host's run is its own")
    }
}
