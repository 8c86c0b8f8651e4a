import Foundation
import Postgres
import Testing
import TestSupport

/// Migrator behaviour against real databases, with fixture directories written per test.
@Suite final class MigratorTests {
    let db: TestDatabase
    let directory: URL

    init() throws {
        db = try TestDatabase.create(migrations: nil)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private func write(_ files: [String: String], into target: URL? = nil) throws {
        for (name, sql) in files {
            try sql.write(to: (target ?? directory).appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
    }

    private func appliedVersions() throws -> [Int] {
        try db.pool.query("SELECT version FROM schema_migrations ORDER BY version").map { try $0.decode("version", as: Int.self) }
    }

    private func tableExists(_ name: String) throws -> Bool {
        try db.pool.query("SELECT to_regclass(\(name)) IS NOT NULL AS present").first?.decode("present", as: Bool.self) ?? false
    }

    private let baseFiles = [
        "0001_create_widgets.sql": "CREATE TABLE widgets (id integer PRIMARY KEY);",
        "0002_add_name.sql": "ALTER TABLE widgets ADD COLUMN name text;\nCREATE INDEX widgets_name ON widgets (name);",
        "README.md": "ignored",
    ]

    @Test func freshDatabaseGetsAllMigrationsInOrder() throws {
        try write(baseFiles)
        let migrator = Migrator(directory: directory)
        #expect(try migrator.status(pool: db.pool).pending.map(\.version) == [1, 2])
        let applied = try migrator.migrate(pool: db.pool)
        #expect(applied.map(\.version) == [1, 2])
        #expect(try appliedVersions() == [1, 2])
        let status = try migrator.status(pool: db.pool)
        #expect(status.isUpToDate)
        #expect(status.applied.map(\.name) == ["create_widgets", "add_name"])
        #expect(status.applied.allSatisfy { $0.checksum.count == 64 })
        try db.pool.execute("INSERT INTO widgets (id, name) VALUES (1, \("w"))")
    }

    @Test func secondRunIsANoOp() throws {
        try write(baseFiles)
        let migrator = Migrator(directory: directory)
        try migrator.migrate(pool: db.pool)
        #expect(try migrator.migrate(pool: db.pool).isEmpty)
        #expect(try appliedVersions() == [1, 2])
    }

    @Test func newFileIsAppliedOnTopOfExistingOnes() throws {
        try write(baseFiles)
        try Migrator(directory: directory).migrate(pool: db.pool)
        try write(["0003_add_color.sql": "ALTER TABLE widgets ADD COLUMN color text;"])
        #expect(try Migrator(directory: directory).migrate(pool: db.pool).map(\.version) == [3])
    }

    @Test func emptyDirectoryIsUpToDate() throws {
        let migrator = Migrator(directory: directory)
        #expect(try migrator.migrate(pool: db.pool).isEmpty)
        #expect(try migrator.status(pool: db.pool).isUpToDate)
    }

    @Test func databaseAheadOfFilesIsRefused() throws {
        try write(baseFiles)
        try Migrator(directory: directory).migrate(pool: db.pool)
        let older = directory.appendingPathComponent("older")
        try FileManager.default.createDirectory(at: older, withIntermediateDirectories: true)
        try write(["0001_create_widgets.sql": baseFiles["0001_create_widgets.sql"] ?? ""], into: older)
        let migrator = Migrator(directory: older)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(pool: db.pool) }
        #expect(error.kind == .databaseAhead)
        #expect(error.versions == [2])
        let status = try migrator.status(pool: db.pool)
        #expect(!status.isUpToDate)
        #expect(status.ahead.map(\.version) == [2])
    }

    @Test func editedAppliedFileIsRefused() throws {
        try write(baseFiles)
        try Migrator(directory: directory).migrate(pool: db.pool)
        try write(["0001_create_widgets.sql": "CREATE TABLE widgets (id bigint PRIMARY KEY);"])
        let error = try #require(throws: MigrationError.self) { try Migrator(directory: directory).migrate(pool: db.pool) }
        #expect(error.kind == .checksumMismatch)
        #expect(error.versions == [1])
        #expect(try Migrator(directory: directory).status(pool: db.pool).checksumMismatches.map(\.version) == [1])
    }

    @Test(arguments: ["1_init.sql", "0001-init.sql", "abcd_init.sql", "0001_.sql", "0001_bad name.sql", "0001_init.SQL", "0000_zero.sql"])
    func badFileNameIsRefused(fileName: String) throws {
        try write([fileName: "SELECT 1;"])
        let error = try #require(throws: MigrationError.self) { try Migrator(directory: directory).loadMigrations() }
        #expect(error.kind == .invalidFile)
        #expect(try !tableExists("schema_migrations"))
    }

    @Test func gapInVersionsIsRefused() throws {
        try write(["0001_a.sql": "SELECT 1;", "0003_c.sql": "SELECT 1;"])
        let error = try #require(throws: MigrationError.self) { try Migrator(directory: directory).migrate(pool: db.pool) }
        #expect(error.kind == .missingVersion)
        #expect(error.versions == [2])
    }

    @Test func duplicateVersionIsRefused() throws {
        try write(["0001_a.sql": "SELECT 1;", "0001_b.sql": "SELECT 1;"])
        let error = try #require(throws: MigrationError.self) { try Migrator(directory: directory).migrate(pool: db.pool) }
        #expect(error.kind == .duplicateVersion)
    }

    @Test func missingDirectoryIsRefused() throws {
        let error = try #require(throws: MigrationError.self) {
            try Migrator(directory: directory.appendingPathComponent("nope")).loadMigrations()
        }
        #expect(error.kind == .unreadableDirectory)
    }

    @Test func failingMigrationRollsBackCompletelyAndRecordsNothing() throws {
        try write([
            "0001_create_widgets.sql": "CREATE TABLE widgets (id integer PRIMARY KEY);",
            "0002_broken.sql": "CREATE TABLE gadgets (id integer);\nINSERT INTO gadgets VALUES (1);\nSELECT 1/0;",
        ])
        let error = try #require(throws: MigrationError.self) { try Migrator(directory: directory).migrate(pool: db.pool) }
        #expect(error.kind == .migrationFailed)
        #expect(error.versions == [2])
        #expect(error.underlying?.code == PostgresError.Code("22012"))
        #expect(try appliedVersions() == [1])
        #expect(try tableExists("widgets"))
        #expect(try !tableExists("gadgets"))
    }

    @Test func migrationThatCommitsItselfIsReported() throws {
        try write(["0001_commits.sql": "CREATE TABLE committed (id int);\nCOMMIT;"])
        let error = try #require(throws: MigrationError.self) { try Migrator(directory: directory).migrate(pool: db.pool) }
        #expect(error.kind == .transactionControlInMigration)
        #expect(try appliedVersions().isEmpty)
    }

    @Test func concurrentMigratorsApplyEachMigrationExactlyOnce() throws {
        try write([
            "0001_a.sql": "CREATE TABLE a (id int); SELECT pg_sleep(0.2);",
            "0002_b.sql": "CREATE TABLE b (id int); SELECT pg_sleep(0.2);",
            "0003_c.sql": "CREATE TABLE c (id int);",
        ])
        let results = AppliedCollector()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread { [db, directory] in
                defer { group.leave() }
                do {
                    let connection = try db.connect()
                    defer { connection.close() }
                    results.add(try Migrator(directory: directory).migrate(connection: connection).map(\.version))
                } catch {
                    results.fail(error)
                }
            }.start()
        }
        group.wait()
        #expect(results.errors.isEmpty)
        #expect(results.versions.sorted() == [1, 2, 3])
        #expect(try appliedVersions() == [1, 2, 3])
    }
}

private final class AppliedCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var applied: [Int] = []
    private var failures: [String] = []

    func add(_ versions: [Int]) {
        lock.lock()
        applied += versions
        lock.unlock()
    }

    func fail(_ error: any Error) {
        lock.lock()
        failures.append("\(error)")
        lock.unlock()
    }

    var versions: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return applied
    }

    var errors: [String] {
        lock.lock()
        defer { lock.unlock() }
        return failures
    }
}
