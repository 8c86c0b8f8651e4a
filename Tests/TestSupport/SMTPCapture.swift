import Foundation

/// A real SMTP relay for tests: scripts/smtp_capture.py (aiosmtpd) as a subprocess on
/// loopback, STARTTLS required by default with a throw-away certificate (`caFile`, for
/// SMTP_CA_FILE). Every accepted message lands in `directory/messages.jsonl`; `messages()`
/// reads them. `stop()` and `start()` take the relay down and bring it back on the same port,
/// as an outage would. Needs `scripts/smtp-capture --install-only` to have run (scripts/test
/// does); nothing is downloaded here.
public final class SMTPCapture: @unchecked Sendable {
    /// One captured message.
    public struct Message: Sendable, Decodable {
        public let mail_from: String
        public let rcpt_tos: [String]
        /// The whole message as received (headers and MIME body, CRLF).
        public let data: String
        public let tls: Bool
        public let auth_user: String?
    }

    public let directory: String
    public let tls: String
    public let extraArguments: [String]
    public private(set) var port = 0
    public private(set) var caFile: String?
    private let lock = NSLock()
    private var process: Process?

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Starts the relay. `tls`: starttls, implicit or none; `arguments`: e.g. ["--reject", "bounce"].
    public init(tls: String = "starttls", arguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-capture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.tls = tls
        extraArguments = arguments
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// (Re)starts the relay, on the same port after a `stop()`.
    public func start() throws {
        lock.lock()
        defer { lock.unlock() }
        guard process == nil else { return }
        let python = Self.root + "/.build-venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestSupportError("no \(python): run scripts/smtp-capture --install-only")
        }
        let ready = directory + "/ready.json"
        try? FileManager.default.removeItem(atPath: ready)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.root + "/scripts/smtp_capture.py", "--dir", directory, "--port", String(port), "--tls", tls] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: ready),
               let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = info["port"] as? Int {
                self.port = port
                caFile = info["ca_file"] as? String
                return
            }
            guard process.isRunning else { throw TestSupportError("smtp_capture.py exited (status \(process.terminationStatus)); is aiosmtpd installed? run scripts/smtp-capture --install-only") }
            usleep(20_000)
        }
        process.terminate()
        throw TestSupportError("smtp_capture.py did not become ready within 20 s")
    }

    /// Stops the relay (SIGTERM, then waits): connections are refused until `start()`.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let process else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
    }

    /// Every message captured so far, oldest first.
    public func messages() -> [Message] {
        guard let data = FileManager.default.contents(atPath: directory + "/messages.jsonl") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONDecoder().decode(Message.self, from: Data($0.utf8))
        }
    }

    /// Waits (at most `timeout`) until `count` messages are captured, then returns them all.
    public func waitForMessages(_ count: Int, timeout: Duration = .seconds(20)) -> [Message] {
        let deadline = ContinuousClock.now + timeout
        var current = messages()
        while current.count < count && ContinuousClock.now < deadline {
            usleep(20_000)
            current = messages()
        }
        return current
    }
}
