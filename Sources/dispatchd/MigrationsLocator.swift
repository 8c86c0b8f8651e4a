import Foundation

/// Finds the `migrations/` directory when MIGRATIONS_DIR is not set: next to the working
/// directory (scripts/serve, docker WORKDIR), or the project root above `.build/<config>/`
/// (running the binary from elsewhere during development).
enum MigrationsLocator {
    static func defaultDirectory() throws(ConfigurationError) -> String {
        let fileManager = FileManager.default
        var candidates = [fileManager.currentDirectoryPath + "/migrations"]
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        // .build/<triple>/<config>/dispatchd → project root is three or four levels up.
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            candidates.append(directory.path + "/migrations")
        }
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
                return URL(fileURLWithPath: candidate).standardizedFileURL.path
            }
        }
        throw ConfigurationError("no migrations directory found; set MIGRATIONS_DIR to the project's migrations/ folder")
    }
}
