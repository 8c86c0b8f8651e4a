import Foundation
import Logging

/// Applies numbered SQL files (`NNNN_name.sql`) in order and records them in
/// `schema_migrations(version, name, checksum, applied_at)`.
///
/// - Each pending file runs in its own transaction together with its `schema_migrations`
///   insert, so a failure leaves neither schema changes nor a record: the database is never
///   half-migrated and there is no "dirty" state to detect. Files must therefore not contain
///   transaction control or statements that cannot run in a transaction
///   (`CREATE INDEX CONCURRENTLY`, `VACUUM`).
/// - A session advisory lock serializes concurrent migrators; the later one finds nothing to do.
/// - The run is refused when the database is ahead of the files or a recorded checksum
///   (SHA-256 of the file bytes, computed by the server) differs from the file.
public struct Migrator: Sendable {
    /// Fixed key for `pg_advisory_lock`: ASCII "dispmigr".
    public static let advisoryLockKey: Int64 = 0x6469_7370_6D69_6772

    public let directory: URL
    private let logger: Logger

    public init(directory: URL, logger: Logger = Logger(label: "postgres.migrator")) {
        self.directory = directory
        self.logger = logger
    }

    public init(directoryPath: String, logger: Logger = Logger(label: "postgres.migrator")) {
        self.init(directory: URL(fileURLWithPath: directoryPath, isDirectory: true), logger: logger)
    }

    /// The validated migration files, sorted by version.
    public func loadMigrations() throws -> [MigrationFile] {
        try MigrationFile.load(from: directory)
    }

    /// Applies all pending migrations and returns them.
    @discardableResult
    public func migrate(pool: PostgresPool) throws -> [MigrationFile] {
        try pool.withConnection { try migrate(connection: $0) }
    }

    /// Applies all pending migrations on `connection` (which must not be in a transaction).
    @discardableResult
    public func migrate(connection: PostgresConnection) throws -> [MigrationFile] {
        let files = try loadMigrations()
        // Long migrations, and waiting for another migrator, must not hit statement_timeout.
        try connection.execute("SELECT set_config('statement_timeout', '0', false)")
        connection.answerDeadlineLifted = true
        defer { connection.answerDeadlineLifted = false }
        try connection.execute("SELECT pg_advisory_lock(\(Self.advisoryLockKey))")
        defer {
            _ = try? connection.execute("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))")
            let timeout = connection.configuration.statementTimeout?.postgresMilliseconds ?? 0
            _ = try? connection.execute("SELECT set_config('statement_timeout', \(String(timeout)), false)")
        }
        try connection.runTrustedScript("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let status = try status(connection: connection, files: files)
        try Self.refuseInconsistent(status)
        for file in status.pending {
            try apply(file, on: connection)
        }
        return status.pending
    }

    /// Compares the database with the files without changing anything.
    public func status(pool: PostgresPool) throws -> MigrationStatus {
        try pool.withConnection { try status(connection: $0) }
    }

    public func status(connection: PostgresConnection) throws -> MigrationStatus {
        try status(connection: connection, files: loadMigrations())
    }

    /// Throws the `MigrationError` that `migrate` would throw for this status, if any.
    public static func refuseInconsistent(_ status: MigrationStatus) throws {
        if !status.ahead.isEmpty {
            let versions = status.ahead.map(\.version)
            throw MigrationError(
                kind: .databaseAhead,
                message: "the database has migrations this build does not know (versions \(versions)); refusing to run against a newer schema",
                versions: versions)
        }
        if !status.checksumMismatches.isEmpty {
            let versions = status.checksumMismatches.map(\.version)
            let names = status.checksumMismatches.map { "\($0.version)_\($0.name)" }
            throw MigrationError(
                kind: .checksumMismatch,
                message: "applied migrations were edited afterwards: \(names.joined(separator: ", ")); add a new migration instead",
                versions: versions)
        }
    }

    private func status(connection: PostgresConnection, files: [MigrationFile]) throws -> MigrationStatus {
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
        let tablePresent = try exists.first?.decode("present", as: Bool.self) ?? false
        guard tablePresent else {
            return MigrationStatus(applied: [], pending: files, ahead: [], checksumMismatches: [])
        }
        let rows = try connection.query("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
        let applied = try rows.map { row in
            AppliedMigration(
                version: try row.decode("version", as: Int.self),
                name: try row.decode("name", as: String.self),
                checksum: try row.decode("checksum", as: String.self),
                appliedAt: try row.decode("applied_at", as: Date.self))
        }
        let filesByVersion = Dictionary(files.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let appliedVersions = Set(applied.map(\.version))
        let checksums = try checksums(of: files, on: connection)
        let mismatches = applied.filter { record in
            filesByVersion[record.version] != nil && checksums[record.version] != record.checksum
        }
        return MigrationStatus(
            applied: applied,
            pending: files.filter { !appliedVersions.contains($0.version) },
            ahead: applied.filter { filesByVersion[$0.version] == nil },
            checksumMismatches: mismatches)
    }

    private func apply(_ file: MigrationFile, on connection: PostgresConnection) throws {
        do {
            try connection.withTransaction { connection in
                try connection.runTrustedScript(file.sql)
                guard connection.transactionStatus == .inTransaction else {
                    throw MigrationError(
                        kind: .transactionControlInMigration,
                        message: "\(file.fileName) ended the migration transaction itself; remove BEGIN/COMMIT/ROLLBACK from the file",
                        versions: [file.version])
                }
                try connection.execute("""
                    INSERT INTO schema_migrations (version, name, checksum, applied_at)
                    VALUES (\(file.version), \(file.name), encode(sha256(\(Data(file.sql.utf8))), 'hex'), now())
                    """)
            }
        } catch let error as PostgresError {
            throw MigrationError(
                kind: .migrationFailed,
                message: "migration \(file.fileName) failed and was rolled back",
                versions: [file.version],
                underlying: error)
        }
        logger.info("applied migration", metadata: ["version": "\(file.version)", "name": "\(file.name)"])
    }

    /// SHA-256 (hex) of each file's bytes, computed by the server in one round trip — the
    /// same expression the insert uses, so the two can never disagree.
    private func checksums(of files: [MigrationFile], on connection: PostgresConnection) throws -> [Int: String] {
        guard !files.isEmpty else { return [:] }
        let contents = files.map { Data($0.sql.utf8) }
        let rows = try connection.query("""
            SELECT encode(sha256(content), 'hex') AS checksum, position
            FROM unnest(\(contents)) WITH ORDINALITY AS file(content, position)
            """)
        var result: [Int: String] = [:]
        for row in rows {
            let position = try row.decode("position", as: Int.self)
            guard files.indices.contains(position - 1) else { continue }
            result[files[position - 1].version] = try row.decode("checksum", as: String.self)
        }
        return result
    }
}
