import Foundation
import Logging

/// A private PostgreSQL cluster managed with initdb and pg_ctl: listens only on a unix
/// socket in a private directory, trusts local connections, superuser `postgres`.
/// When this process is root, the server programs run as `configuration.osUser` via runuser.
public final class EmbeddedPostgres: Sendable {
    public let configuration: Configuration
    public let binaries: PostgresBinaries
    public let socketDirectory: String
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger = Logger(label: "embedded-postgres")) throws {
        let dataDirectory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path
        var configuration = configuration
        configuration.dataDirectory = dataDirectory
        self.configuration = configuration
        self.binaries = try PostgresBinaries.locate(explicitDirectory: configuration.binDirectory)
        self.socketDirectory = configuration.socketDirectory ?? Self.defaultSocketDirectory(for: dataDirectory)
        self.logger = logger
        try Self.requireShellSafe(dataDirectory, what: "data directory")
        try Self.requireShellSafe(socketDirectory, what: "socket directory")
        // sun_path holds 108 bytes including the terminator.
        guard (socketDirectory + "/.s.PGSQL.\(configuration.port)").utf8.count <= 107 else {
            throw EmbeddedPostgresError(kind: .invalidArgument, message: "socket directory path too long for a unix socket: \(socketDirectory)")
        }
    }

    /// `host=<socket dir> port=<port> user=postgres dbname=<database>`
    public func conninfo(database: String = "postgres") -> String {
        "host=\(socketDirectory) port=\(configuration.port) user=postgres dbname=\(database)"
    }

    public var conninfo: String { conninfo() }

    /// The same target as a URL (`postgresql:///db?host=…&port=…&user=postgres`), for
    /// settings such as DATABASE_URL that require the URL form.
    public func url(database: String = "postgres") -> String {
        "postgresql:///\(database)?host=\(socketDirectory)&port=\(configuration.port)&user=postgres"
    }

    /// Initializes the data directory if needed and starts the server; returns once it
    /// accepts connections. Adopts a server already running on this data directory. Returns
    /// whether this call started it: only then is the caller the one to stop it.
    @discardableResult
    public func start() throws -> Bool {
        let owner = try prepared()
        if isRunning {
            logger.info("PostgreSQL already running", metadata: ["data": "\(configuration.dataDirectory)"])
            return false
        }
        try run(owner, binaries.pgCtl, [
            "-w", "-t", "60", "-D", configuration.dataDirectory,
            "-l", configuration.dataDirectory + "/server.log",
            "-o", serverOptions(), "start",
        ], action: "pg_ctl start", includeServerLog: true)
        logger.info("PostgreSQL started", metadata: ["socket": "\(socketDirectory)", "port": "\(configuration.port)"])
        return true
    }

    /// Prepares the directories and runs initdb when the data directory has no cluster yet
    /// (`start` does this too); for work on a cluster that never ran (`setNextTransactionID`).
    public func initialize() throws {
        _ = try prepared()
    }

    private func prepared() throws -> ServerUser {
        let owner = try ServerUser(osUser: configuration.osUser)
        try owner.prepareDirectory(configuration.dataDirectory)
        try owner.prepareDirectory(socketDirectory)
        if !FileManager.default.fileExists(atPath: configuration.dataDirectory + "/PG_VERSION") {
            logger.info("initializing PostgreSQL cluster", metadata: ["data": "\(configuration.dataDirectory)"])
            try run(owner, binaries.initdb, [
                "-D", configuration.dataDirectory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C",
            ], action: "initdb")
        }
        return owner
    }

    /// Fast shutdown: disconnects clients, rolls back open transactions, waits for exit.
    public func stop() throws {
        guard isRunning else { return }
        let owner = try ServerUser(osUser: configuration.osUser)
        try run(owner, binaries.pgCtl, ["-w", "-t", "60", "-D", configuration.dataDirectory, "-m", "fast", "stop"], action: "pg_ctl stop")
    }

    /// `pg_resetwal -x`: the cluster's next transaction id (server stopped). Restore tests use
    /// it to put a new cluster's counter below or above the one a backup came from.
    public func setNextTransactionID(_ xid: UInt64) throws {
        guard !isRunning else {
            throw EmbeddedPostgresError(kind: .invalidArgument, message: "pg_resetwal needs the server stopped")
        }
        let owner = try ServerUser(osUser: configuration.osUser)
        try run(owner, binaries.directory + "/pg_resetwal", ["-x", String(xid), configuration.dataDirectory], action: "pg_resetwal")
    }

    public var isRunning: Bool {
        guard let owner = try? ServerUser(osUser: configuration.osUser),
              let result = try? ProcessRunner.run(owner.command(binaries.pgCtl), owner.arguments(binaries.pgCtl, ["-D", configuration.dataDirectory, "status"]), currentDirectory: "/")
        else { return false }
        return result.status == 0
    }

    /// `CREATE DATABASE name [TEMPLATE template]` through psql.
    public func createDatabase(_ name: String, template: String? = nil) throws {
        try Self.requireIdentifier(name)
        var sql = "CREATE DATABASE \"\(name)\""
        if let template {
            try Self.requireIdentifier(template)
            sql += " TEMPLATE \"\(template)\""
        }
        try psql(sql)
    }

    /// `DROP DATABASE IF EXISTS name WITH (FORCE)` through psql.
    public func dropDatabase(_ name: String) throws {
        try Self.requireIdentifier(name)
        try psql("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
    }

    // MARK: Internals

    private func psql(_ sql: String) throws {
        let result = try ProcessRunner.run(binaries.psql, [
            "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-p", String(configuration.port),
            "-U", "postgres", "-d", "postgres", "-c", sql,
        ], currentDirectory: "/")
        guard result.status == 0 else {
            throw EmbeddedPostgresError(kind: .commandFailed, message: "psql failed (\(result.status)): \(result.output)")
        }
    }

    private func serverOptions() -> String {
        var options = ["-k", socketDirectory, "-c", "listen_addresses=''", "-p", String(configuration.port)]
        if !configuration.fsync {
            options += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        }
        for (name, value) in configuration.settings.sorted(by: { $0.key < $1.key }) {
            options += ["-c", "\(name)=\(value)"]
        }
        return options.joined(separator: " ")
    }

    private func run(_ owner: ServerUser, _ program: String, _ arguments: [String], action: String, includeServerLog: Bool = false) throws {
        let result = try ProcessRunner.run(owner.command(program), owner.arguments(program, arguments), currentDirectory: "/")
        guard result.status == 0 else {
            var message = "\(action) failed with status \(result.status): \(result.output)"
            if includeServerLog, let log = try? String(contentsOfFile: configuration.dataDirectory + "/server.log", encoding: .utf8) {
                message += "\nserver log (tail):\n" + log.split(separator: "\n").suffix(20).joined(separator: "\n")
            }
            throw EmbeddedPostgresError(kind: .commandFailed, message: message)
        }
    }

    private static func defaultSocketDirectory(for dataDirectory: String) -> String {
        // FNV-1a keeps the name short and stable per data directory.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in dataDirectory.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return "/tmp/dpg-" + String(hash, radix: 16)
    }

    /// pg_ctl passes `-o` through a shell, so paths and settings must not need quoting.
    private static func requireShellSafe(_ path: String, what: String) throws {
        let allowed = path.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-".contains($0)) }
        guard allowed, !path.isEmpty else {
            throw EmbeddedPostgresError(kind: .invalidArgument, message: "\(what) may only contain letters, digits, '/', '.', '_' and '-': \(path)")
        }
    }

    private static func requireIdentifier(_ name: String) throws {
        let valid = !name.isEmpty && name.utf8.count < 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        guard valid else {
            throw EmbeddedPostgresError(kind: .invalidArgument, message: "database name must be [A-Za-z0-9_]{1,63}: \(name)")
        }
    }
}
