import EmbeddedPostgres
import Foundation

/// A database as libpq tools (pg_dump, pg_restore) reach it: the connection string with the
/// password moved into PGPASSWORD, so it never shows on a command line (`ps`).
struct DatabaseTarget: Sendable {
    /// A `postgresql://` URL or a keyword conninfo (`host=… dbname=…`), password included.
    let conninfo: String

    /// The same server, another database.
    func named(_ database: String) -> DatabaseTarget {
        if isURL, var components = URLComponents(string: conninfo) {
            components.path = "/" + database
            if let url = components.string { return DatabaseTarget(conninfo: url) }
        }
        // In a keyword conninfo the last occurrence of a keyword wins.
        return DatabaseTarget(conninfo: conninfo + " dbname=\(database)")
    }

    /// `--dbname` for a tool and the environment it needs.
    var tool: (dbname: String, environment: [String: String]) {
        guard isURL, var components = URLComponents(string: conninfo) else { return (conninfo, [:]) }
        var environment: [String: String] = [:]
        if let password = components.password {
            environment["PGPASSWORD"] = password
            components.password = nil
        }
        if let items = components.queryItems {
            if let password = items.first(where: { $0.name == "password" })?.value { environment["PGPASSWORD"] = password }
            let rest = items.filter { $0.name != "password" }
            components.queryItems = rest.isEmpty ? nil : rest
        }
        return (components.string ?? conninfo, environment)
    }

    /// Runs a PostgreSQL client program against this target; a failure is a BackupError with
    /// the program's own message.
    func run(_ program: String, _ arguments: [String], action: String) throws {
        let (dbname, environment) = tool
        let result = try ProcessRunner.run(program, arguments + ["--no-password", "--dbname=\(dbname)"],
                                           environment: environment)
        guard result.status == 0 else {
            throw BackupError("\(action) failed (\(URL(fileURLWithPath: program).lastPathComponent) exit \(result.status)): "
                + result.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    private var isURL: Bool { conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://") }
}
