import Foundation
import Postgres
import Testing

/// What the backup and restore tests share: the command environment, reading a backup's
/// manifest with plain tar (as an operator would), and a table's rows in comparable form.
enum BackupFixture {
    static let secret = String(repeating: "b", count: 40)
    static let publishableKey = "sb_publishable_test-key-0123456789"

    static func environment(_ databaseURL: String) -> [String: String] {
        ["DATABASE_URL": databaseURL, "JWT_SECRET": secret, "PUBLISHABLE_KEY": publishableKey, "LOG_LEVEL": "warning",
         "HOST": "127.0.0.1", "PORT": "0"]
    }

    /// A fresh private directory for backup files.
    static func directory() throws -> URL {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory() + "dispatch-backups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func manifest(of file: URL) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        process.arguments = ["-xOf", file.path, "manifest.json"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Every row of `table` as JSON text without its transaction-id columns (restore
    /// re-stamps those: migrations/0023), sorted; with `snapshot`, only rows written by
    /// transactions visible in it (the backup's own snapshot, for a source that kept writing).
    static func rows(of table: String, on connection: PostgresConnection, visibleIn snapshot: String? = nil) throws -> [String] {
        let xidColumns: [String] = try connection.query("""
            SELECT column_name::text AS name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table) AND data_type = 'xid8'
            """).map { try $0.decode("name") }
        let without = "ARRAY[" + xidColumns.map { "'\($0)'" }.joined(separator: ",") + "]::text[]"
        var filter = ""
        if let snapshot, xidColumns.contains("txid") {
            filter = "WHERE pg_visible_in_snapshot(t.txid, '\(snapshot)'::pg_snapshot)"
        }
        return try connection.query("""
            SELECT (to_jsonb(t) - \(unsafeSQL: without))::text AS row FROM "\(unsafeSQL: table)" t \(unsafeSQL: filter) ORDER BY 1
            """).map { try $0.decode("row") }
    }
}
