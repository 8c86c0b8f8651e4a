import EmbeddedPostgres
import Foundation
import Postgres

/// Takes one consistent backup of a database into one file (BackupArchive).
///
/// Consistency: one REPEATABLE READ transaction exports its snapshot, counts every table and
/// reads the applied migrations, while pg_dump dumps with that same snapshot
/// (`--snapshot`). The manifest therefore describes exactly the dump, however many writers
/// run meanwhile, and nothing is locked beyond pg_dump's usual ACCESS SHARE locks.
package struct BackupMaker {
    package static let filePrefix = "dispatch-backup-"
    package static let fileSuffix = ".tar"

    package let target: DatabaseTarget
    /// Signs the manifest (BackupKeyring): a restore accepts only files made with the key.
    package let keys: BackupKeyring

    /// `dispatch-backup-20261127T031500.123Z.tar`: sorts by time, names its UTC day.
    package static func fileName(at date: Date) -> String {
        filePrefix + dayStamp(date) + timeFormatter.string(from: date) + fileSuffix
    }

    /// The UTC day in file-name form (`20261127`), the prefix the daily schedule looks for.
    package static func dayStamp(_ date: Date) -> String {
        dayFormatter.string(from: date)
    }

    /// Writes the backup to `file` and returns its manifest.
    package func make(to file: URL) throws -> BackupManifest {
        let directory = file.deletingLastPathComponent()
        // Owner-only when this creates it: the directory lists who backs up what, and when.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // Beside the output, not in /tmp: the dump can be large and /tmp small.
        let work = directory.appendingPathComponent(".dispatch-backup-work-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: work) }

        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(target.conninfo)
        } catch {
            throw BackupError("cannot connect to the database: \(error)")
        }
        defer { connection.close() }
        var manifest = try connection.withTransaction(isolation: .repeatableRead) { connection in
            try connection.execute("SET TRANSACTION READ ONLY")
            guard let snapshot: String = try connection.query("SELECT pg_export_snapshot() AS id").first?.decode("id") else {
                throw BackupError("the database exported no snapshot")
            }
            let facts = try DatabaseFacts.read(on: connection)
            let pgDump = try Self.pgDump(serverVersionNum: facts.serverVersionNum)
            try target.run(pgDump.path, ["--format=custom", "--snapshot=\(snapshot)",
                                         "--file=\(work.appendingPathComponent(BackupManifest.dumpName).path)"],
                           action: "pg_dump")
            return BackupManifest(
                format: BackupManifest.currentFormat, createdAt: facts.takenAt, snapshot: facts.snapshot, database: facts.database,
                serverVersion: facts.serverVersion, serverVersionNum: facts.serverVersionNum, pgDumpVersion: pgDump.version,
                schemaVersion: facts.migrations.last?.version ?? 0, migrations: facts.migrations, rowCounts: facts.rowCounts,
                roles: facts.roles, epoch: facts.epoch, members: [])
        }
        manifest.members = [try BackupArchive.member(work.appendingPathComponent(BackupManifest.dumpName))]
        let manifestBytes = try manifest.encoded()
        try manifestBytes.write(to: work.appendingPathComponent(BackupManifest.manifestName))
        try keys.sign(manifestBytes).write(to: work.appendingPathComponent(BackupManifest.signatureName))
        try BackupArchive.write(from: work, to: file)
        return manifest
    }

    /// The pg_dump to use and its version text; refuses one older than the server (pg_dump
    /// cannot dump a newer server).
    package static func pgDump(serverVersionNum: Int) throws -> (path: String, version: String) {
        let serverMajor = serverVersionNum / 10000
        guard let path = PostgresBinaries.clientProgram("pg_dump", serverMajor: serverMajor) else {
            throw BackupError("pg_dump not found; install the PostgreSQL \(serverMajor) client (apt-get install postgresql-client-\(serverMajor))")
        }
        let result = try ProcessRunner.run(path, ["--version"])
        let version = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        // "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
        let number = version.split(separator: " ").dropFirst(2).first ?? ""
        guard let major = Int(number.split(separator: ".").first ?? ""), major >= serverMajor else {
            throw BackupError("\(path) is \"\(version)\", older than the PostgreSQL \(serverMajor) server; install postgresql-client-\(serverMajor)")
        }
        return (path, version)
    }

    private static let dayFormatter = formatter("yyyyMMdd")
    private static let timeFormatter = formatter("'T'HHmmss.SSS'Z'")

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter
    }
}
