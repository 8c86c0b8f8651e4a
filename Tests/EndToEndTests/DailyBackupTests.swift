import Foundation
import Testing

/// The embedded default (`scripts/serve`, no DATABASE_URL) backs itself up from day one:
/// a backup at start, reported on /metrics and /readyz, and `restore --verify` proves it.
@Suite struct DailyBackupTests {
    @Test func embeddedServeTakesItsFirstBackupAtStartAndVerifyProvesIt() throws {
        let dataDirectory = NSTemporaryDirectory() + "dispatch-daily-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let environment = ["DATA_DIR": dataDirectory, "HOST": "127.0.0.1", "PORT": "0", "LOG_LEVEL": "warning", "BACKUP_KEEP": "3"]
        let server = try ServedDispatchd(environment: environment)
        let client = TestHTTPClient(port: server.port)
        let backups = URL(fileURLWithPath: dataDirectory).appendingPathComponent("backups")
        var report: [String: Any] = [:]
        try BackupRestoreTests.waitUntil(timeout: .seconds(60)) {
            report = (try? client.get("/readyz").json?["backup"] as? [String: Any]) ?? [:]
            return report["fresh"] as? Bool == true
        }
        // Only freshness: the path stays in the log (/readyz is unauthenticated).
        #expect(Array(report.keys) == ["fresh"], "\(report)")
        let files = try FileManager.default.contentsOfDirectory(atPath: backups.path).filter { $0.hasSuffix(".tar") }
        #expect(files.count == 1, "\(files)")
        let file = try #require(files.first)
        let day = ISO8601DateFormatter().string(from: Date()).prefix(10).replacingOccurrences(of: "-", with: "")
        #expect(file.hasPrefix("dispatch-backup-\(day)T"), "named for today (UTC)")

        let metrics = String(decoding: try client.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("\nbackup_last_attempt_succeeded 1\n"), "\(metrics.suffix(600))")
        let success = metrics.split(separator: "\n").first { $0.hasPrefix("backup_last_success_timestamp_seconds ") }
        let stamp = try #require(success.flatMap { Double($0.split(separator: " ").last ?? "") })
        #expect(abs(stamp - Date().timeIntervalSince1970) < 120)

        // Beside the running server (its embedded PostgreSQL stays up), as an operator would.
        let verified = try CommandLineTests.runDispatchd(["restore", "--verify", backups.appendingPathComponent(file).path], environment: environment)
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError.suffix(800))")
        #expect(verified.standardOutput.contains("verified"))
        #expect(try client.get("/readyz").status == 200, "the server's database still runs")
        _ = try server.stop()
    }
}
