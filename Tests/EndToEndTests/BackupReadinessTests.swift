import Foundation
import Testing
import TestSupport

/// `/readyz` is unauthenticated: it says whether the last backup is fresh and nothing more,
/// never a path on the server or an error's text (those go to the log).
@Suite struct BackupReadinessTests {
    @Test func aFailedDailyBackupShowsOnlyThatNoBackupIsFresh() throws {
        let database = try TestDatabase.create()
        let blocker = try BackupFixture.directory().appendingPathComponent("a-file")
        try Data("not a directory\n".utf8).write(to: blocker)
        let backupDirectory = blocker.appendingPathComponent("backups").path
        var environment = BackupFixture.environment(try CommandLineDatabaseTests.url(for: database))
        environment["BACKUP_DAILY"] = "on"
        environment["BACKUP_DIR"] = backupDirectory
        let server = try ServedDispatchd(environment: environment)
        let client = TestHTTPClient(port: server.port)
        try BackupRestoreTests.waitUntil(timeout: .seconds(60)) {
            let metrics = String(decoding: (try? client.get("/metrics").body) ?? [], as: UTF8.self)
            return metrics.contains("\nbackup_last_attempt_timestamp_seconds ") && !metrics.contains("\nbackup_last_attempt_timestamp_seconds 0\n")
        }
        let ready = try client.get("/readyz")
        let body = String(decoding: ready.body, as: UTF8.self)
        #expect(ready.status == 200, "a failed backup does not make the server unready")
        #expect(ready.json?["backup"] as? [String: Bool] == ["fresh": false], "\(body)")
        #expect(!body.contains(blocker.path) && !body.contains("cannot"), "\(body)")
        let log = try server.stop()
        #expect(log.contains("daily backup failed"), "the reason is logged: \(log.suffix(600))")
    }
}
