import Foundation
import Postgres

/// A fresh database for one test, cloned from a migrated template, with its own pool.
/// Dropped when this object is released (keep it alive while using `pool`) or at exit.
public final class TestDatabase: Sendable {
    public let name: String
    public let conninfo: String
    public let pool: PostgresPool
    public let cluster: TestCluster

    private init(name: String, conninfo: String, pool: PostgresPool, cluster: TestCluster) {
        self.name = name
        self.conninfo = conninfo
        self.pool = pool
        self.cluster = cluster
    }

    deinit {
        pool.close()
        TestRegistry.shared.drop(name)
    }

    /// Creates `t_<random>` from the template migrated with `migrations` (default: the
    /// repository's `migrations/`, which may be empty or absent). Throws when PostgreSQL is
    /// unavailable — database tests fail loudly rather than skip.
    public static func create(
        migrations: URL? = TestDatabase.repositoryMigrationsDirectory,
        poolSize: Int = 4,
        acquisitionTimeout: Duration = .seconds(5)
    ) throws -> TestDatabase {
        let cluster = try TestCluster.shared()
        let template = try TestRegistry.shared.template(for: migrations, cluster: cluster)
        let name = "t_" + TestRegistry.randomSuffix()
        try TestRegistry.admin(cluster) {
            try $0.execute("CREATE DATABASE \(unsafeSQL: name) TEMPLATE \(unsafeSQL: template)")
        }
        TestRegistry.shared.register(name)
        let conninfo = cluster.conninfo(database: name)
        let pool = PostgresPool(configuration: .init(connection: serverConnection(conninfo), size: poolSize,
                                                     acquisitionTimeout: acquisitionTimeout))
        return TestDatabase(name: name, conninfo: conninfo, pool: pool, cluster: cluster)
    }

    /// This database as a `postgres://` URL (for DATABASE_URL in subprocess tests).
    public var url: String {
        if let server = cluster.embedded { return server.url(database: name) }
        return conninfo
    }

    /// A pool with custom settings on this database (the caller closes it).
    public func makePool(size: Int, acquisitionTimeout: Duration = .seconds(5)) -> PostgresPool {
        PostgresPool(configuration: .init(connection: Self.serverConnection(conninfo), size: size,
                                          acquisitionTimeout: acquisitionTimeout))
    }

    /// The sync channel dispatchd's connections notify after commit (SyncService.channel).
    public static let syncChannel = "dispatch_sync"

    /// Connection settings as dispatchd's pool has them: the sync wake-up sent after commit
    /// (migrations/0026). `connect()` stays a plain session, as psql or a script would be,
    /// whose writes notify at commit.
    public static func serverConnection(_ conninfo: String) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(conninfo: conninfo, afterCommitChannels: [syncChannel])
    }

    /// A standalone connection to this database.
    public func connect() throws -> PostgresConnection {
        try PostgresConnection(conninfo)
    }

    /// Drops the database now (idempotent).
    public func drop() {
        pool.close()
        TestRegistry.shared.drop(name)
    }

    /// The repository's `migrations/`, found by walking up from this file to Package.swift;
    /// nil when the directory does not exist (yet).
    public static var repositoryMigrationsDirectory: URL? {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                let migrations = directory.appendingPathComponent("migrations", isDirectory: true)
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: migrations.path, isDirectory: &isDirectory)
                return exists && isDirectory.boolValue ? migrations : nil
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// A temporary copy of the repository's migrations up to `version`, for upgrade tests that
    /// fill a database at an older schema and then apply the rest. The caller removes it.
    public static func repositoryMigrations(through version: Int) throws -> URL {
        guard let repository = repositoryMigrationsDirectory else { throw TestSupportError("migrations/ not found") }
        let older = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(version)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: older, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: repository.path)
        where name.hasSuffix(".sql") && (Int(name.prefix(4)) ?? .max) <= version {
            try FileManager.default.copyItem(at: repository.appendingPathComponent(name), to: older.appendingPathComponent(name))
        }
        return older
    }
}
