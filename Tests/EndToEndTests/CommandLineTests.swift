import Foundation
import Testing

/// The `dispatchd` binary as operators run it: bad configuration stops it before it touches
/// anything, with exit code 2 and one line naming the variable.
@Suite struct CommandLineTests {
    static let validSecret = String(repeating: "s", count: 32)

    @Test(arguments: [
        (["PORT": "eighty"], "PORT must be an integer"),
        (["PORT": "70000"], "PORT must be an integer between 0 and 65535"),
        (["DB_POOL_SIZE": "0"], "DB_POOL_SIZE must be an integer"),
        (["DB_STATEMENT_CACHE_SIZE": "-1"], "DB_STATEMENT_CACHE_SIZE must be an integer between 0 and 100000"),
        (["LOG_LEVEL": "loud"], "LOG_LEVEL must be one of"),
        (["LOG_FORMAT": "xml"], "LOG_FORMAT must be text or json"),
        (["SYNC_PAGE_MAX_BYTES": "1000"], "SYNC_PAGE_MAX_BYTES must be an integer between 16384"),
        (["HTTP_IDLE_TIMEOUT": "-1"], "HTTP_IDLE_TIMEOUT must be a number of seconds"),
        (["WS_MAX_MESSAGE_BYTES": "12"], "WS_MAX_MESSAGE_BYTES must be an integer between 125"),
        (["WS_SEND_QUEUE_BYTES": "lots"], "WS_SEND_QUEUE_BYTES must be an integer"),
        (["WS_PING_INTERVAL": "0"], "WS_PING_INTERVAL must be a number of seconds"),
        (["JWT_SECRET": "too-short"], "JWT_SECRET must be at least 32 bytes"),
        (["TRUSTED_PROXIES": "10.0.0.1, proxy.internal"], "TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges"),
        (["TRUSTED_PROXIES": "10.0.0.0/33"], "(got \"10.0.0.0/33\")"),
        (["KDF_CONCURRENCY": "0"], "KDF_CONCURRENCY must be an integer"),
        (["LISTEN_BACKLOG": "0"], "LISTEN_BACKLOG must be an integer between 1 and 1048576"),
        (["DATABASE_URL": "postgres://localhost/dispatch"], "JWT_SECRET is required when DATABASE_URL is set"),
        (["DATABASE_URL": "mysql://localhost/dispatch", "JWT_SECRET": validSecret], "DATABASE_URL must start with postgres://"),
        (["DATABASE_URL": "postgres://localhost/dispatch", "JWT_SECRET": validSecret], "PUBLISHABLE_KEY is required when DATABASE_URL is set"),
        (["PUBLISHABLE_KEY": "short"], "PUBLISHABLE_KEY must be at least 20 characters"),
        (["PUBLISHABLE_KEY": "sb_publishable_with a space"], "PUBLISHABLE_KEY must be printable ASCII without spaces"),
        (["SMTP_HOST": "mail.example.com", "SMTP_SENDER": "a@example.com", "SMTP_TLS": "none"],
         "SMTP_TLS=none is accepted only when SMTP_HOST is a loopback address"),
        (["SMTP_HOST": "10.0.0.5", "SMTP_SENDER": "a@example.com", "SMTP_TLS": "none"], "SMTP_TLS=none is accepted only"),
        (["SMTP_HOST": "mail.example.com", "SMTP_SENDER": "a@example.com", "SMTP_TLS": "maybe"], "SMTP_TLS must be starttls, implicit or none"),
        (["SMTP_HOST": "mail.example.com"], "SMTP_SENDER is required with SMTP_HOST"),
        (["SMTP_HOST": "mail.example.com", "SMTP_SENDER": "a@example.com\r\nBcc: x@example.com"], "SMTP_SENDER must be an address"),
        (["SMTP_HOST": "mail.example.com", "SMTP_SENDER": "a@example.com", "SMTP_USER": "u"], "SMTP_USER and SMTP_PASS go together"),
        (["SMTP_PORT": "2525"], "SMTP_PORT is set but SMTP_HOST is not"),
        (["PUBLIC_URL": "dispatch.example.com"], "PUBLIC_URL must be the http(s) URL"),
        (["AUTH_REDIRECT_URLS": "https://ok.example, not a url"], "AUTH_REDIRECT_URLS must be a comma-separated list of absolute URLs"),
        (["SLACK_HOOKS_BASE_URL": "https://hooks.slack.com"], "SLACK_HOOKS_BASE_URL must be an http(s) URL ending in /"),
        (["SLACK_HOOKS_BASE_URL": "file:///etc/"], "SLACK_HOOKS_BASE_URL must be an http(s) URL ending in /"),
    ])
    func serveWithInvalidConfigurationExitsWithStatus2AndNamesTheSetting(environment: [String: String], message: String) throws {
        let result = try Self.runDispatchd(["serve"], environment: environment)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func serveWithInvalidFlagValueExitsWithStatus2() throws {
        let result = try Self.runDispatchd(["serve", "--port", "99999"], environment: [:])
        #expect(result.status == 2)
        #expect(result.standardError.contains("PORT must be an integer"))
    }

    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs the binary built next to the test bundle with a clean, explicit environment.
    static func runDispatchd(_ arguments: [String], environment: [String: String]) throws -> Result {
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        base["DATA_DIR"] = NSTemporaryDirectory() + "dispatchd-cli-\(UUID().uuidString)"
        return try run(binary(), arguments, environment: base.merging(environment) { _, new in new })
    }

    /// Runs a program to its end with exactly this environment and collects what it printed.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      standardOutput: String(decoding: outData, as: UTF8.self),
                      standardError: String(decoding: errData, as: UTF8.self))
    }

    struct MissingBinary: Error, CustomStringConvertible {
        let path: String
        var description: String { "dispatchd not built at \(path); run `swift build --build-tests` first" }
    }

    static func binary() throws -> URL {
        // The test bundle lives in .build/<config>/ next to the products.
        let bundle = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        if directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        }
        let candidate = directory.appendingPathComponent("dispatchd")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else { throw MissingBinary(path: candidate.path) }
        return candidate
    }
}
