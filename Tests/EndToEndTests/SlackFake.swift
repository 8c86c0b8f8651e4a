import Foundation
import TestSupport

/// scripts/slack_fake.py as a subprocess: a fake incoming webhook / response_url receiver on
/// 127.0.0.1 answering a scripted list, and Slack's own SDK signing the tests' requests. Needs
/// `scripts/slack-fake --install-only` (scripts/test runs it); nothing is downloaded here.
final class SlackFake: @unchecked Sendable {
    struct Request: Decodable {
        let path: String
        let body: String
        let received_at: Double
        let content_type: String?
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let python = root + "/.build-venv/bin/python"
    static let script = root + "/scripts/slack_fake.py"

    let directory: String
    let process = Process()
    private(set) var port = 0

    /// `answers`: "STATUS:BODY[:RETRY_AFTER]" for the first requests, in order; then 200 ok.
    init(answers: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("slack-fake-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw TestSupportError("no \(Self.python): run scripts/slack-fake --install-only")
        }
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.script, "serve", "--dir", directory] + answers.flatMap { ["--answer", $0] }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: directory + "/ready.json"),
               let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = info["port"] as? Int {
                self.port = port
                return
            }
            guard process.isRunning else { throw TestSupportError("slack_fake.py exited; run scripts/slack-fake --install-only") }
            usleep(20_000)
        }
        process.terminate()
        throw TestSupportError("slack_fake.py did not become ready within 20 s")
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

    var base: String { "http://127.0.0.1:\(port)/" }

    func requests() -> [Request] {
        guard let data = FileManager.default.contents(atPath: directory + "/requests.jsonl") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
    }

    /// Waits (at most `timeout`) for `count` requests, then returns them all.
    func waitForRequests(_ count: Int, timeout: Duration = .seconds(30)) -> [Request] {
        let deadline = ContinuousClock.now + timeout
        var current = requests()
        while current.count < count && ContinuousClock.now < deadline {
            usleep(20_000)
            current = requests()
        }
        return current
    }

    /// `v0=…` for `body` as slack_sdk's SignatureVerifier computes it.
    static func sign(_ body: String, secret: String, timestamp: Int) throws -> String {
        let signer = Process()
        signer.executableURL = URL(fileURLWithPath: python)
        signer.arguments = [script, "sign", "--secret", secret, "--timestamp", String(timestamp)]
        let input = Pipe(), output = Pipe()
        signer.standardInput = input
        signer.standardOutput = output
        try signer.run()
        input.fileHandleForWriting.write(Data(body.utf8))
        try input.fileHandleForWriting.close()
        let signature = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        signer.waitUntilExit()
        guard signer.terminationStatus == 0 else { throw TestSupportError("slack_sdk refused its own signature") }
        return signature.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
