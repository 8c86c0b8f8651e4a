import Foundation

/// Runs a helper program to completion and captures its combined output.
enum ProcessRunner {
    struct Result {
        let status: Int32
        let output: String
    }

    /// Output goes to a temporary file rather than a pipe: `pg_ctl start` leaves a server
    /// running, and a pipe inherited by it would never reach end-of-file.
    static func run(_ executable: String, _ arguments: [String], currentDirectory: String? = nil) throws -> Result {
        let outputPath = NSTemporaryDirectory() + "/embedded-pg-\(UUID().uuidString).log"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
              let outputHandle = FileHandle(forWritingAtPath: outputPath)
        else {
            throw EmbeddedPostgresError(kind: .filesystem, message: "cannot create \(outputPath)")
        }
        defer {
            try? outputHandle.close()
            try? FileManager.default.removeItem(atPath: outputPath)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = outputHandle
        process.standardError = outputHandle
        process.standardInput = FileHandle.nullDevice
        if let currentDirectory {
            process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory, isDirectory: true)
        }
        do {
            try process.run()
        } catch {
            throw EmbeddedPostgresError(kind: .commandFailed, message: "cannot start \(executable): \(error)")
        }
        process.waitUntilExit()
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
