import EmbeddedPostgres
import Foundation

/// A database as libpq tools (pg_dump, pg_restore) reach it: the connection string with the
/// password moved into PGPASSWORD, so it never shows on a command line (`ps`).
package struct DatabaseTarget: Sendable {
    /// A `postgresql://` URL or a keyword conninfo (`host=… dbname=…`), password included.
    package let conninfo: String
    /// A password that replaces the conninfo's (a role this process created: `signedIn`).
    package var password: String?

    package init(conninfo: String, password: String? = nil) {
        self.conninfo = conninfo
        self.password = password
    }

    /// The same server, another database.
    package func named(_ database: String) -> DatabaseTarget {
        if isURL, var components = URLComponents(string: conninfo) {
            components.path = "/" + database
            if let url = components.string { return DatabaseTarget(conninfo: url, password: password) }
        }
        // In a keyword conninfo the last occurrence of a keyword wins.
        return DatabaseTarget(conninfo: conninfo + " dbname=\(database)", password: password)
    }

    /// The same server as another role. `user` and `password` are made by this process
    /// (letters, digits, `_` and `-`), so they need no quoting in a keyword conninfo.
    package func signedIn(as user: String, password: String) -> DatabaseTarget {
        if isURL, var components = URLComponents(string: conninfo) {
            components.user = user
            components.password = nil
            let rest = components.queryItems?.filter { $0.name != "user" && $0.name != "password" } ?? []
            components.queryItems = rest.isEmpty ? nil : rest
            if let url = components.string { return DatabaseTarget(conninfo: url, password: password) }
        }
        return DatabaseTarget(conninfo: conninfo + " user=\(user)", password: password)
    }

    /// The conninfo for an in-process libpq connection, with `password` applied.
    package var connectionString: String {
        guard let password else { return conninfo }
        if isURL, var components = URLComponents(string: conninfo) {
            components.password = password
            if let url = components.string { return url }
        }
        return conninfo + " password=\(password)"
    }

    /// `--dbname` for a tool and the environment it needs.
    package var tool: (dbname: String, environment: [String: String]) {
        guard isURL, var components = URLComponents(string: conninfo) else {
            return (conninfo, password.map { ["PGPASSWORD": $0] } ?? [:])
        }
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
        if let password { environment["PGPASSWORD"] = password }
        return (components.string ?? conninfo, environment)
    }

    /// Runs a PostgreSQL client program against this target; a failure is a BackupError with
    /// the program's own message.
    package func run(_ program: String, _ arguments: [String], action: String) throws {
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
