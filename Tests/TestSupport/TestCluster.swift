import EmbeddedPostgres
import Foundation
import Postgres

/// The process-wide PostgreSQL server for tests: `DATABASE_URL` when set, otherwise a
/// throw-away embedded cluster (fsync off) started on first use and removed at exit.
public final class TestCluster: Sendable {
    /// conninfo or URL of the server's maintenance database.
    public let baseConninfo: String
    /// The embedded server, when this process started one.
    public let embedded: EmbeddedPostgres?

    init(baseConninfo: String, embedded: EmbeddedPostgres?) {
        self.baseConninfo = baseConninfo
        self.embedded = embedded
    }

    /// The shared cluster, started on first call. Throws (never skips) when PostgreSQL
    /// cannot be reached or started.
    public static func shared() throws -> TestCluster {
        try TestRegistry.shared.cluster()
    }

    /// The same server, a different database.
    public func conninfo(database: String) -> String {
        Self.conninfo(baseConninfo, database: database)
    }

    static func conninfo(_ base: String, database: String) -> String {
        if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://"), var components = URLComponents(string: base) {
            components.path = "/" + database
            if let url = components.string { return url }
        }
        // In a conninfo string the last occurrence of a keyword wins.
        return base + " dbname='\(database)'"
    }

    static func start() throws -> TestCluster {
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty {
            do {
                _ = try PostgresConnection(url)
            } catch {
                throw TestSupportError("DATABASE_URL is set but the server is unreachable: \(error)")
            }
            return TestCluster(baseConninfo: url, embedded: nil)
        }
        let dataDirectory = "/tmp/dispatch-test-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            let server = try EmbeddedPostgres(configuration: .init(
                dataDirectory: dataDirectory,
                fsync: false,
                settings: ["max_connections": "300", "shared_buffers": "32MB"]))
            try server.start()
            return TestCluster(baseConninfo: server.conninfo(database: "postgres"), embedded: server)
        } catch {
            throw TestSupportError("cannot start a throw-away PostgreSQL cluster (set DATABASE_URL to use an existing server): \(error)")
        }
    }
}
