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

    private let fake: FakeProcess
    var directory: String { fake.directory }
    var port: Int { fake.port }

    /// `answers`: "STATUS:BODY[:RETRY_AFTER]" for the first requests, in order; then 200 ok.
    init(answers: [String] = []) throws {
        fake = try FakeProcess(name: "slack-fake")
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw TestSupportError("no \(Self.python): run scripts/slack-fake --install-only")
        }
        try fake.start(Self.python, [Self.script, "serve", "--dir", fake.directory] + answers.flatMap { ["--answer", $0] },
                       hint: "; run scripts/slack-fake --install-only")
    }

    var base: String { "http://127.0.0.1:\(port)/" }

    func requests() -> [Request] {
        (try? fake.requests(as: Request.self)) ?? []
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
