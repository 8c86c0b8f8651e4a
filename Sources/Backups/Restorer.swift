import EmbeddedPostgres
import Foundation
import Logging
import Postgres
import Store

/// `dispatchd restore`: loads a backup file into the configured database, or (`--verify`)
/// into a scratch database that is dropped afterwards. Either way the file's HMAC and
/// checksums are checked before anything touches a database, nothing but the dump is ever
/// run, and the loaded data is compared with the manifest: every table's row count and the
/// applied migrations.
package struct Restorer {
    package let target: DatabaseTarget
    package let migrationsDirectory: String
    package let logger: Logger

    package init(target: DatabaseTarget, migrationsDirectory: String, logger: Logger) {
        self.target = target
        self.migrationsDirectory = migrationsDirectory
        self.logger = logger
    }

    /// What a restore found; `problems` empty means everything matched.
    package struct Report {
        package var lines: [String] = []
        package var problems: [String] = []
    }

    package func verify(_ backup: CheckedBackup) throws -> Report {
        let manifest = backup.manifest
        var report = Self.header(backup)
        let scratch = "dispatch_verify_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try connect(target)
        defer { admin.close() }
        let role = try VerificationRole.create(database: scratch, on: admin, target: target)
        defer {
            let droppedDatabase = (try? admin.execute("DROP DATABASE IF EXISTS \(unsafeSQL: scratch) WITH (FORCE)")) != nil
            if !(role.drop(on: admin) && droppedDatabase) {
                logger.error("could not drop the scratch database or its role", metadata: ["database": .string(scratch)])
            }
        }
        if let name = role.name { report.lines.append("loading as role \(name): not a superuser, owns only the scratch database") }
        let scratchTarget = role.target.named(scratch)
        let connection = try connect(scratchTarget)
        defer { connection.close() }
        // No roles are created: verify changes nothing outside its scratch database.
        try load(backup, into: scratchTarget, on: connection, createRoles: false)
        report.problems = Self.differences(manifest, try DatabaseFacts.read(on: connection))
        report.lines.append(report.problems.isEmpty
            ? "verified: restored into scratch database \(scratch); \(manifest.rowCounts.count) tables, \(manifest.rowCounts.values.reduce(0, +)) rows and \(manifest.migrations.count) migrations match the manifest"
            : "NOT verified: the restored copy differs from the manifest")
        report.lines.append(role.name == nil ? "scratch database \(scratch) dropped" : "scratch database and role \(scratch) dropped")
        return report
    }

    /// Restores into the configured database. It must be empty unless `force` (then its
    /// schema is dropped first), and no one else may be connected to it.
    package func restore(_ backup: CheckedBackup, force: Bool) throws -> Report {
        let manifest = backup.manifest
        var report = Self.header(backup)
        let known = try Migrator(directoryPath: migrationsDirectory, logger: logger).loadMigrations().map(\.version)
        if let newest = manifest.migrations.last?.version, newest > (known.last ?? 0) {
            throw BackupError("the backup's schema (migration \(newest)) is newer than this dispatchd (\(known.last ?? 0)); restore it with the release that wrote it or a later one")
        }
        let connection = try connect(target)
        defer { connection.close() }
        try prepare(connection, force: force)
        try load(backup, into: target, on: connection, createRoles: true)
        report.problems = Self.differences(manifest, try DatabaseFacts.read(on: connection))
        guard report.problems.isEmpty else {
            report.lines.append("restored, but the data differs from the manifest; do not serve it")
            return report
        }
        let applied = try Migrator(directoryPath: migrationsDirectory, logger: logger).migrate(connection: connection)
        try BackupRunStore.markRestored(file: backup.file.lastPathComponent, on: connection)
        let epoch = try connection.withTransaction { try DatabaseEpoch.renew(on: $0) }
        report.lines.append("restored: \(manifest.rowCounts.count) tables, \(manifest.rowCounts.values.reduce(0, +)) rows, \(manifest.migrations.count) migrations match the manifest")
        if !applied.isEmpty { report.lines.append("applied \(applied.count) newer migrations of this build") }
        report.lines.append("new sync epoch \(epoch): devices that synced before get 410 resync_required and sync afresh")
        return report
    }

    /// Refuses a database in use or (without `force`) one that holds tables.
    private func prepare(_ connection: PostgresConnection, force: Bool) throws {
        guard let row = try connection.query("""
            SELECT (SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()) AS others,
                   (SELECT count(*)::int8 FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')) AS tables,
                   current_database() AS database, quote_ident(current_schema()) AS schema
            """).first else { throw BackupError("the database answered nothing") }
        let others: Int = try row.decode("others"), tables: Int = try row.decode("tables")
        let database: String = try row.decode("database"), schema: String = try row.decode("schema")
        guard others == 0 else {
            throw BackupError("\(others) other sessions are connected to database \(database); stop every server (and anything else using it) before restoring")
        }
        guard tables > 0 else { return }
        guard force else {
            throw BackupError("database \(database) is not empty (\(tables) tables); restore refuses to replace data. Restore into an empty database, or pass --force to drop schema \(schema) and everything in it first")
        }
        logger.warning("dropping the existing data before restoring (--force)", metadata: ["database": .string(database), "tables": .stringConvertible(tables)])
        try connection.withTransaction { connection in
            try connection.execute("DROP SCHEMA \(unsafeSQL: schema) CASCADE")
            try connection.execute("CREATE SCHEMA \(unsafeSQL: schema)")
        }
    }

    /// Creates the missing roles it may (`createRoles`), then runs pg_restore in one
    /// transaction. Ownership goes to the restoring user (`--no-owner`): the server's user must
    /// own the tables to migrate them. Privileges are restored only when every role they name
    /// exists.
    private func load(_ backup: CheckedBackup, into database: DatabaseTarget, on connection: PostgresConnection,
                      createRoles: Bool) throws {
        let roles = backup.manifest.roles
        if createRoles { BackupRoles.createMissing(roles, on: connection, logger: logger) }
        let missing = try BackupRoles.missing(roles, on: connection)
        let serverNumber: Int = try connection.query("SELECT current_setting('server_version_num')::int AS n").first?.decode("n") ?? 0
        guard let pgRestore = PostgresBinaries.clientProgram("pg_restore", serverMajor: serverNumber / 10000) else {
            throw BackupError("pg_restore not found; install the PostgreSQL \(serverNumber / 10000) client (apt-get install postgresql-client-\(serverNumber / 10000))")
        }
        var arguments = ["--exit-on-error", "--single-transaction", "--no-owner"]
        if !missing.isEmpty {
            logger.warning("some roles of the backup are missing; restoring without privileges (GRANTs)",
                           metadata: ["roles": .string(missing.joined(separator: ", "))])
            arguments.append("--no-privileges")
        }
        try database.run(pgRestore, arguments + [backup.dump.path], action: "pg_restore")
    }

    private func connect(_ database: DatabaseTarget) throws -> PostgresConnection {
        do {
            return try PostgresConnection(database.connectionString)
        } catch {
            throw BackupError("cannot connect to the database: \(error)")
        }
    }

    private static func header(_ backup: CheckedBackup) -> Report {
        let manifest = backup.manifest
        return Report(lines: [
            "backup \(backup.file.path)",
            "taken \(manifest.createdAt) from database \(manifest.database) on PostgreSQL \(manifest.serverVersion), schema version \(manifest.schemaVersion)",
            "signature and checksums match: \(manifest.members.map { "\($0.name) (\($0.bytes) bytes)" }.joined(separator: ", "))",
        ])
    }

    /// Every way the restored database differs from the manifest, one line each.
    package static func differences(_ manifest: BackupManifest, _ restored: DatabaseFacts) -> [String] {
        var problems: [String] = []
        if restored.migrations != manifest.migrations {
            problems.append("migrations: the backup recorded \(manifest.migrations.map(\.version)), the restored database has \(restored.migrations.map(\.version))")
        }
        for table in Set(manifest.rowCounts.keys).union(restored.rowCounts.keys).sorted() {
            let expected = manifest.rowCounts[table], actual = restored.rowCounts[table]
            if expected != actual {
                problems.append("table \(table): the backup recorded \(expected.map(String.init) ?? "no table"), restored \(actual.map(String.init) ?? "no table")")
            }
        }
        return problems
    }
}
