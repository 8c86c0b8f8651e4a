import Foundation

/// Locates the PostgreSQL server programs.
public struct PostgresBinaries: Sendable, Equatable {
    public let directory: String

    public var initdb: String { directory + "/initdb" }
    public var pgCtl: String { directory + "/pg_ctl" }
    public var postgres: String { directory + "/postgres" }
    /// psql usually lives in /usr/bin on Debian, not in the versioned directory.
    public var psql: String {
        let candidate = directory + "/psql"
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : (Self.searchPath("psql") ?? "psql")
    }

    public init(directory: String) {
        self.directory = directory
    }

    /// Search order: an explicit directory, `/usr/lib/postgresql/<highest>/bin`, `$PATH`,
    /// then `pg_config --bindir`.
    public static func locate(explicitDirectory: String? = nil) throws -> PostgresBinaries {
        if let explicitDirectory {
            guard isComplete(explicitDirectory) else {
                throw EmbeddedPostgresError(
                    kind: .binariesNotFound,
                    message: "initdb/pg_ctl/postgres not found in \(explicitDirectory); install postgresql: apt-get install -y postgresql")
            }
            return PostgresBinaries(directory: explicitDirectory)
        }
        for candidate in debianDirectories() + pathDirectories() + pgConfigDirectory() where isComplete(candidate) {
            return PostgresBinaries(directory: candidate)
        }
        throw EmbeddedPostgresError(
            kind: .binariesNotFound,
            message: "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in /usr/lib/postgresql/*/bin, $PATH or pg_config --bindir; install postgresql: apt-get install -y postgresql")
    }

    /// A client program (pg_dump, pg_restore) for a server of major version `serverMajor`:
    /// Debian's directory of that major version first, then the highest installed one, then
    /// `$PATH`. pg_dump refuses servers newer than itself, so the caller checks the version.
    public static func clientProgram(_ name: String, serverMajor: Int? = nil) -> String? {
        let exact = serverMajor.map { ["/usr/lib/postgresql/\($0)/bin"] } ?? []
        return (exact + debianDirectories() + pathDirectories())
            .map { $0 + "/" + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func isComplete(_ directory: String) -> Bool {
        ["initdb", "pg_ctl", "postgres"].allSatisfy { FileManager.default.isExecutableFile(atPath: directory + "/" + $0) }
    }

    private static func debianDirectories() -> [String] {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions
            .compactMap { name in Double(name).map { (name, $0) } }
            .sorted { $0.1 > $1.1 }
            .map { "\(root)/\($0.0)/bin" }
    }

    private static func pathDirectories() -> [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    }

    private static func pgConfigDirectory() -> [String] {
        guard let pgConfig = searchPath("pg_config"),
              let result = try? ProcessRunner.run(pgConfig, ["--bindir"])
        else { return [] }
        let directory = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return result.status == 0 && !directory.isEmpty ? [directory] : []
    }

    static func searchPath(_ program: String) -> String? {
        pathDirectories()
            .map { $0 + "/" + program }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
