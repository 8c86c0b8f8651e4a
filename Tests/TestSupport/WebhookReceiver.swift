import Foundation

/// A real webhook receiver for tests: scripts/webhook_receiver.py (Python's http.server) as a
/// subprocess on 127.0.0.1, answering as the request path scripts it (`/s/500,429-2,200`) and
/// verifying every signature with the PyPI `standardwebhooks` package against the secrets the
/// test writes with `trust(_:)`. Needs `scripts/webhook-receiver --install-only` to have run
/// (scripts/test does); nothing is downloaded here.
public final class WebhookReceiver: @unchecked Sendable {
    /// One request as the receiver saw it.
    public struct Request: Sendable, Decodable {
        public let path: String
        public let headers: [String: String]
        public let body: String
        /// Indexes (in `trust` order) of the secrets whose signature verified.
        public let verified: [Int]
        public let answer: String
        public let received_at: Double

        public var webhookID: String? { headers["webhook-id"] }
        public var timestamp: String? { headers["webhook-timestamp"] }
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        }
    }

    public let directory: String
    public private(set) var port = 0
    private let process: Process

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-receiver-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let python = SMTPCapture.root + "/.build-venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestSupportError("no \(python): run scripts/webhook-receiver --install-only")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [SMTPCapture.root + "/scripts/webhook_receiver.py", "--dir", directory]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: directory + "/ready.json"),
               let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = info["port"] as? Int {
                self.port = port
                return
            }
            guard process.isRunning else {
                throw TestSupportError("webhook_receiver.py exited (status \(process.terminationStatus)); run scripts/webhook-receiver --install-only")
            }
            usleep(20_000)
        }
        process.terminate()
        throw TestSupportError("webhook_receiver.py did not become ready within 20 s")
    }

    deinit {
        // SIGKILL: the child may inherit a mask blocking SIGTERM from the test process, and
        // the receiver has nothing to flush (every request is written as it arrives).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The URL of a scripted path: `url("500,200")` answers 500, then 200 from then on.
    public func url(_ script: String = "200", tag: String = "") -> String {
        "http://127.0.0.1:\(port)/\(tag.isEmpty ? "" : tag + "/")s/\(script)"
    }

    /// The secrets signatures are checked against, in order (replaces the previous list).
    public func trust(_ secrets: [String]) throws {
        try Data((secrets.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/secrets"))
    }

    public func requests() throws -> [Request] {
        guard let data = FileManager.default.contents(atPath: directory + "/requests.jsonl") else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
    }
}
