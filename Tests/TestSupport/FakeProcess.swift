import Foundation

/// A scripted peer run as a subprocess (scripts/apns_fake.js, fcm_fake.js, slack_fake.py) with
/// a scratch directory of its own: it writes `ready.json` with its port once it listens on
/// 127.0.0.1, appends each request it saw to `requests.jsonl`, and reads the answers a test
/// scripts from `script.json`. The directory exists before the process starts, so a fake's
/// keys and certificates can be made there first.
public final class FakeProcess: @unchecked Sendable {
    public let directory: String
    public private(set) var port = 0
    private let process = Process()

    /// `name` prefixes the scratch directory ("apns-fake").
    public init(name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Runs `executable` with `arguments` and waits (at most 20 s) for its `ready.json`;
    /// `hint` is added when it exits first (how to install what it needs).
    public func start(_ executable: String, _ arguments: [String], hint: String = "") throws {
        let name = URL(fileURLWithPath: arguments.first ?? executable).lastPathComponent
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: directory + "/ready.json"),
               let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = info["port"] as? Int {
                self.port = port
                return
            }
            guard process.isRunning else { throw TestSupportError("\(name) exited (status \(process.terminationStatus))\(hint)") }
            usleep(20_000)
        }
        process.terminate()
        throw TestSupportError("\(name) did not become ready within 20 s")
    }

    deinit {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Replaces the scripted answers; atomic, so the fake never reads half a script.
    public func writeScript(_ answers: Any) throws {
        try JSONSerialization.data(withJSONObject: answers).write(to: URL(fileURLWithPath: directory + "/script.json.tmp"))
        guard rename(directory + "/script.json.tmp", directory + "/script.json") == 0 else {
            throw TestSupportError("cannot write the fake's script in \(directory)")
        }
    }

    /// The requests the fake recorded so far, decoded one JSON line each.
    public func requests<Request: Decodable>(as type: Request.Type) throws -> [Request] {
        guard let data = FileManager.default.contents(atPath: directory + "/requests.jsonl") else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
    }
}
