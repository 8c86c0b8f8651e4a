import ArgumentParser
import Foundation

/// Flags that override environment variables of the same meaning. Secrets (JWT_SECRET) have
/// no flag on purpose: command lines are visible to every user through `ps`.
struct ConfigurationOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL (env DATABASE_URL). Without one, an embedded PostgreSQL runs under --data-dir.")
    var databaseURL: String?

    @Option(help: "Address to listen on (env HOST, default 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on, 0 for any free port (env PORT, default 8080).")
    var port: String?

    @Option(help: "Database connections (env DB_POOL_SIZE, default 10).")
    var poolSize: String?

    @Option(help: "trace|debug|info|notice|warning|error|critical (env LOG_LEVEL, default info).")
    var logLevel: String?

    @Option(help: "text|json (env LOG_FORMAT, default text).")
    var logFormat: String?

    @Option(help: "Directory for the embedded database and generated secrets (env DATA_DIR, default ./.data).")
    var dataDir: String?

    @Option(help: "Directory of numbered .sql migrations (env MIGRATIONS_DIR, default ./migrations).")
    var migrationsDir: String?

    /// The process environment with flags applied on top, parsed and validated.
    func load() throws(ConfigurationError) -> Configuration {
        var environment = ProcessInfo.processInfo.environment
        let overrides: [(Setting, String?)] = [
            (.databaseURL, databaseURL), (.host, host), (.port, port), (.databasePoolSize, poolSize),
            (.logLevel, logLevel), (.logFormat, logFormat), (.dataDirectory, dataDir), (.migrationsDirectory, migrationsDir),
        ]
        for (setting, value) in overrides {
            if let value { environment[setting.name] = value }
        }
        return try Configuration.load(from: environment)
    }

    /// Loads the configuration or ends the process with exit code 2 and a one-line message.
    func loadOrExit() throws -> Configuration {
        do {
            return try load()
        } catch {
            FileHandle.standardError.write(Data("dispatchd: configuration error: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
    }
}
