import EmbeddedPostgres
import Foundation
import Postgres

/// Process-wide state behind TestCluster/TestDatabase: the cluster, one migrated template per
/// migrations directory, and the databases to drop at exit. Guarded by `lock`.
final class TestRegistry: @unchecked Sendable {
    static let shared = TestRegistry()

    private let lock = NSLock()
    private let templateLock = NSLock()
    // The fields below are only touched while `lock` is held.
    private var startedCluster: TestCluster?
    /// A failed start is remembered so every test reports it without retrying initdb.
    private var startFailure: (any Error)?
    private var templates: [String: String] = [:]
    private var liveDatabases: Set<String> = []
    private var registeredExitHandler = false

    func cluster() throws -> TestCluster {
        lock.lock()
        defer { lock.unlock() }
        if let startedCluster { return startedCluster }
        if let startFailure { throw startFailure }
        let cluster: TestCluster
        do {
            cluster = try TestCluster.start()
        } catch {
            startFailure = error
            throw error
        }
        startedCluster = cluster
        if !registeredExitHandler {
            registeredExitHandler = true
            atexit { TestRegistry.shared.cleanUpAtExit() }
        }
        return cluster
    }

    /// The template database migrated from `directory`, created once per process. Templates
    /// are created one at a time so two tests never migrate the same directory twice.
    func template(for directory: URL?, cluster: TestCluster) throws -> String {
        let key = directory?.standardizedFileURL.path ?? ""
        templateLock.lock()
        defer { templateLock.unlock() }
        if let name = withLock({ templates[key] }) { return name }
        let name = "tmpl_" + Self.randomSuffix()
        try Self.admin(cluster) { try $0.execute("CREATE DATABASE \(unsafeSQL: name)") }
        withLock { liveDatabases.insert(name) }
        if let directory {
            do {
                let connection = try PostgresConnection(cluster.conninfo(database: name))
                defer { connection.close() }
                try Migrator(directory: directory).migrate(connection: connection)
            } catch {
                throw TestSupportError("migrating the template database from \(directory.path) failed: \(error)")
            }
        }
        withLock { templates[key] = name }
        return name
    }

    func register(_ database: String) {
        withLock { _ = liveDatabases.insert(database) }
    }

    func drop(_ database: String) {
        guard withLock({ liveDatabases.remove(database) }) != nil, let cluster = withLock({ startedCluster }) else { return }
        _ = try? Self.admin(cluster) { try $0.execute("DROP DATABASE IF EXISTS \(unsafeSQL: database) WITH (FORCE)") }
    }

    @discardableResult
    static func admin<Result>(_ cluster: TestCluster, _ body: (PostgresConnection) throws -> Result) throws -> Result {
        let connection = try PostgresConnection(cluster.baseConninfo)
        defer { connection.close() }
        return try body(connection)
    }

    static func randomSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    @discardableResult
    private func withLock<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func cleanUpAtExit() {
        guard let cluster = withLock({ startedCluster }) else { return }
        if let server = cluster.embedded {
            try? server.stop()
            try? FileManager.default.removeItem(atPath: server.configuration.dataDirectory)
            try? FileManager.default.removeItem(atPath: server.socketDirectory)
            return
        }
        for database in withLock({ liveDatabases }) {
            drop(database)
        }
    }
}
