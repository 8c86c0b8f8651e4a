import Foundation
import Testing

/// The README's five-minute walk-through, run as a newcomer would: `dispatchd serve` on a fresh
/// embedded database (as `scripts/serve` runs it), the admin password taken from what it prints,
/// then the README's own shell block with bash. Every `# {…}` comment under a command in that
/// block is the output the reader is promised; the test compares them line by line, so the
/// README cannot drift from the server.
@Suite struct ReadmeWalkthroughTests {
    /// The HTML comment that marks the tested block in README.md (invisible when rendered).
    static let marker = "<!-- walkthrough:"

    @Test func theReadmeWalkthroughRunsAgainstAFreshServerAndPrintsWhatItPromises() throws {
        let walkthrough = try Self.walkthroughBlock(in: DeploymentFiles.text("README.md"))
        let promised = walkthrough.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("# {") || line.hasPrefix("# [") ? String(line.dropFirst(2)) : nil
        }
        try #require(!promised.isEmpty, "the walk-through shows no output to check")

        let dataDirectory = NSTemporaryDirectory() + "dispatchd-walkthrough-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let server = try ServedDispatchd(
            environment: ["DATA_DIR": dataDirectory, "HOST": "127.0.0.1", "PORT": "0", "LOG_FORMAT": "json"],
            bannerUntil: "password:")
        defer { _ = try? server.stop() }
        let password = try #require(Self.value(after: "password:", in: server.banner), "banner: \(server.banner)")
        #expect(server.banner.contains("email:    admin@dispatch.local"), "banner: \(server.banner)")

        let script = try Self.substituting(walkthrough, [
            "API": "http://127.0.0.1:\(server.port)",
            "ADMIN_PASSWORD": password,
        ])
        let result = try Self.bash(script)
        #expect(result.status == 0, "bash failed: \(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").map(String.init) == promised,
                "printed:\n\(result.standardOutput)\nstderr:\n\(result.standardError)")
    }

    struct WalkthroughMissing: Error, CustomStringConvertible {
        let reason: String
        var description: String { "README.md walk-through: \(reason)" }
    }

    /// The first fenced block after the marker comment.
    static func walkthroughBlock(in readme: String) throws -> String {
        guard let marker = readme.range(of: marker) else { throw WalkthroughMissing(reason: "no \(Self.marker) comment") }
        let rest = readme[marker.upperBound...]
        guard let open = rest.range(of: "```sh\n"), let close = rest[open.upperBound...].range(of: "\n```") else {
            throw WalkthroughMissing(reason: "no ```sh block after the marker")
        }
        return String(rest[open.upperBound..<close.lowerBound])
    }

    /// The block with the reader's placeholder assignments (`NAME=…` at the start of a line)
    /// replaced by real values; each must be present, so a renamed variable fails loudly.
    static func substituting(_ block: String, _ values: [String: String]) throws -> String {
        var lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (name, value) in values {
            guard let index = lines.firstIndex(where: { $0.hasPrefix("\(name)=") }) else {
                throw WalkthroughMissing(reason: "no line assigning \(name)")
            }
            lines[index] = "\(name)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'"
        }
        return lines.joined(separator: "\n")
    }

    static func value(after label: String, in banner: String) -> String? {
        banner.split(separator: "\n").first { $0.contains(label) }
            .flatMap { $0.components(separatedBy: label).last?.trimmingCharacters(in: .whitespaces) }
    }

    static func bash(_ script: String) throws -> CommandLineTests.Result {
        // -e: a failing command stops the walk-through; -o pipefail: also inside a pipe.
        try CommandLineTests.run(URL(fileURLWithPath: "/bin/bash"), ["-e", "-o", "pipefail", "-c", script],
                                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
    }
}
