import Foundation

/// A `dispatchd serve` child process on a free port; `stop()` sends SIGTERM and returns what
/// it wrote to standard error; `kill()` sends SIGKILL.
final class ServedDispatchd: @unchecked Sendable {
    let process = Process()
    let errorFile: URL
    private(set) var port = 0
    /// What the server printed on standard output at start (its first line, or up to and
    /// including the line holding `bannerUntil`).
    private(set) var banner = ""

    /// `shell`: commands a shell runs before it becomes the server (`exec`), e.g. `ulimit -Sn 256`;
    /// the process is then the server itself. `bannerUntil`: keep reading standard output until a
    /// whole line containing this text has arrived (the first admin's password, say).
    init(environment: [String: String], shell: String? = nil, bannerUntil: String? = nil) throws {
        errorFile = URL(fileURLWithPath: NSTemporaryDirectory() + "dispatchd-log-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else {
            throw ServeFailure(banner: "cannot create \(errorFile.path)")
        }
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(shell); exec \"$0\" serve", try CommandLineTests.binary().path]
        } else {
            process.executableURL = try CommandLineTests.binary()
            process.arguments = ["serve"]
        }
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        base["DATA_DIR"] = NSTemporaryDirectory() + "dispatchd-log-data-\(UUID().uuidString)"
        process.environment = base.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        // A file, not a pipe: nobody reads standard error until the end, and a full pipe
        // would block the server.
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        var banner = ""
        while !Self.complete(banner, until: bannerUntil) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        guard let portText = banner.split(separator: "\n").first?.split(separator: ":").last, let port = Int(portText) else {
            process.terminate()
            throw ServeFailure(banner: banner)
        }
        self.port = port
        self.banner = banner
    }

    private static func complete(_ banner: String, until marker: String?) -> Bool {
        guard let marker else { return banner.contains("\n") }
        guard let range = banner.range(of: marker) else { return false }
        return banner[range.upperBound...].contains("\n")
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }

    /// `kill -9`: no shutdown, no goodbye to the database or to open connections.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: errorFile)
    }

    func stop() throws -> String {
        process.terminate()
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: errorFile) }
        return try String(contentsOf: errorFile, encoding: .utf8)
    }

    struct ServeFailure: Error, CustomStringConvertible {
        let banner: String
        var description: String { "dispatchd serve did not print its URL: \(banner)" }
    }
}
