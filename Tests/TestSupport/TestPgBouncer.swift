import Foundation
import Postgres

/// Debian's PgBouncer (apt `pgbouncer`, scripts/install-deps) in TRANSACTION mode in front of
/// the test cluster, on a unix socket in a private directory (nothing listens on TCP), with
/// few server connections so that clients really do share server sessions: consecutive
/// transactions of one client land on different backends. Killed when released.
public final class TestPgBouncer: @unchecked Sendable {
    public let directory: String
    /// The port PgBouncer's socket is named after (`.s.PGSQL.<port>`); nothing binds it on TCP.
    public let port = 6432
    public let user: String
    private let process = Process()

    /// `serverConnections`: PgBouncer's `default_pool_size`, server sessions per database.
    public init(cluster: TestCluster, serverConnections: Int = 3) throws {
        let upstream = try Self.upstream(cluster)
        user = upstream.user
        directory = "/tmp/dispatch-pgbouncer-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        // PgBouncer refuses to run as root: as root it drops to the cluster's OS user (-u),
        // which must be able to write its socket here.
        let runAs = geteuid() == 0 ? (cluster.embedded?.configuration.osUser ?? "postgres") : nil
        let config = """
            [databases]
            * = host=\(upstream.host) port=\(upstream.port)
            [pgbouncer]
            listen_addr =
            unix_socket_dir = \(directory)
            listen_port = \(port)
            auth_type = trust
            auth_file = \(directory)/users.txt
            pool_mode = transaction
            default_pool_size = \(serverConnections)
            max_client_conn = 500
            """
        try config.write(toFile: directory + "/pgbouncer.ini", atomically: true, encoding: .utf8)
        try "\"\(upstream.user)\" \"\"\n".write(toFile: directory + "/users.txt", atomically: true, encoding: .utf8)
        if let runAs {
            guard let entry = getpwnam(runAs), chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw TestSupportError("cannot hand \(directory) to \(runAs) for pgbouncer")
            }
        }
        guard let binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].first(where: FileManager.default.isExecutableFile) else {
            throw TestSupportError("pgbouncer is not installed (scripts/install-deps installs it: apt-get install pgbouncer)")
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = (runAs.map { ["-u", $0] } ?? []) + [directory + "/pgbouncer.ini"]
        let log = directory + "/pgbouncer.log"
        guard FileManager.default.createFile(atPath: log, contents: nil) else { throw TestSupportError("cannot create \(log)") }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while (try? PostgresConnection(conninfo(database: "postgres"))) == nil {
            guard process.isRunning, Date() < deadline else {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                stop()
                throw TestSupportError("pgbouncer did not start: \(text)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    deinit { stop() }

    public func stop() {
        if process.isRunning {
            // SIGKILL: a test process may have SIGTERM blocked (a server under test installs
            // its signal handling), and children inherit the mask. PgBouncer keeps no state.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `database` through the pooler, as a conninfo string.
    public func conninfo(database: String) -> String {
        "host=\(directory) port=\(port) user=\(user) dbname=\(database)"
    }

    /// `database` through the pooler, as a URL (DATABASE_URL).
    public func url(database: String) -> String {
        "postgresql:///\(database)?host=\(directory)&port=\(port)&user=\(user)"
    }

    /// Where the cluster listens, asked of the server itself (works for DATABASE_URL too,
    /// as long as it trusts the pooler's connections: PgBouncer is given no password).
    static func upstream(_ cluster: TestCluster) throws -> (host: String, port: String, user: String) {
        let connection = try PostgresConnection(cluster.baseConninfo)
        defer { connection.close() }
        guard let row = try connection.query("""
            SELECT host(inet_server_addr()) AS address, current_setting('port') AS port,
                   split_part(current_setting('unix_socket_directories'), ',', 1) AS socket, current_user AS role
            """).first else { throw TestSupportError("cannot ask the test cluster where it listens") }
        let address: String? = try row.decode("address")
        let socket: String = try row.decode("socket")
        return (address ?? socket.trimmingCharacters(in: .whitespaces), try row.decode("port"), try row.decode("role"))
    }
}
