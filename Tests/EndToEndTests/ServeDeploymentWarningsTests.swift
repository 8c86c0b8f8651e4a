import Foundation
import Mail
import Testing
import TestSupport

/// A real `dispatchd serve`, its log captured: what it says about a deployment that cannot see
/// its clients, and what the development file mailer never writes to the log.
@Suite struct ServeDeploymentWarningsTests {
    static let secret = String(repeating: "w", count: 40)
    static let key = "sb_publishable_warnings-key-0123456789"
    static let email = "warned@example.com"
    static let forwardedWarning = "a request carries X-Forwarded-For from a peer TRUSTED_PROXIES does not list"
    static let httpsWarning = "X-Forwarded-Proto: https but PUBLIC_URL is unset"

    static func environment(_ database: TestDatabase, _ extra: [String: String] = [:]) -> [String: String] {
        ["DATABASE_URL": database.url, "JWT_SECRET": secret, "PUBLISHABLE_KEY": key, "HOST": "127.0.0.1", "PORT": "0",
         "LOG_FORMAT": "json", "BACKUP_DAILY": "off"].merging(extra) { _, new in new }
    }

    static func occurrences(of text: String, in log: String) -> Int {
        log.components(separatedBy: text).count - 1
    }

    @Test func warnsOnceAboutForwardedHeadersThatTheServerCannotUse() throws {
        let database = try TestDatabase.create()
        let server = try ServedDispatchd(environment: Self.environment(database))
        let client = TestHTTPClient(port: server.port)
        for index in 0..<3 {
            let response = try client.perform(method: "GET", path: "/healthz",
                                              headers: ["X-Forwarded-For": "203.0.113.\(index)", "X-Forwarded-Proto": "https"])
            #expect(response.status == 200)
        }
        let log = try server.stop()
        #expect(Self.occurrences(of: Self.forwardedWarning, in: log) == 1, "\(log.suffix(2000))")
        #expect(Self.occurrences(of: Self.httpsWarning, in: log) == 1)
    }

    @Test func aTrustedProxyAndAnHTTPSPublicURLRaiseNoWarning() throws {
        let database = try TestDatabase.create()
        let server = try ServedDispatchd(environment: Self.environment(database, [
            "TRUSTED_PROXIES": "127.0.0.1", "PUBLIC_URL": "https://dispatch.example.com", "MAIL_FILE_DELIVERY": "true",
        ]))
        let client = TestHTTPClient(port: server.port)
        let response = try client.perform(method: "GET", path: "/healthz",
                                          headers: ["X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"])
        #expect(response.status == 200)
        let log = try server.stop()
        #expect(log.contains("listening"))
        #expect(Self.occurrences(of: Self.forwardedWarning, in: log) == 0)
        #expect(Self.occurrences(of: Self.httpsWarning, in: log) == 0)
    }

    /// Anyone may ask for a recovery mail; without SMTP it lands in a file, and the log (which
    /// operators ship and share) holds that file's path, never the code, the link or the text.
    @Test func theDevelopmentMailerLogsOnlyTheFilesPath() throws {
        let database = try TestDatabase.create()
        let dataDirectory = NSTemporaryDirectory() + "dispatchd-devmail-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let environment = Self.environment(database, ["DATA_DIR": dataDirectory])
        let created = try CommandLineTests.runDispatchd(["create-admin", "--email", Self.email, "--name", "Wanda",
                                                         "--password", "a long enough password"], environment: environment)
        #expect(created.status == 0, "\(created.standardError.suffix(600))")
        let server = try ServedDispatchd(environment: environment)
        let client = TestHTTPClient(port: server.port)
        let recover = try client.perform(method: "POST", path: "/auth/v1/recover",
                                         headers: ["Content-Type": "application/json", "Apikey": Self.key],
                                         body: Array(#"{"email":"\#(Self.email)"}"#.utf8))
        #expect(recover.status == 200)
        let mailDirectory = dataDirectory + "/mail"
        var files: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while files.isEmpty, Date() < deadline {
            files = ((try? FileManager.default.contentsOfDirectory(atPath: mailDirectory)) ?? []).filter { $0.hasSuffix(".eml") }
            if files.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        }
        let file = try #require(files.first, "the recovery mail was written within 60 s")
        let path = mailDirectory + "/" + file
        let message = try String(contentsOfFile: path, encoding: .utf8)
        let text = try #require(MailMessage.plainText(of: message))
        let code = try #require(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 6 && $0.allSatisfy(\.isNumber) })
        let link = try #require(text.split(separator: "\n").first { $0.contains("/auth/v1/verify?") }).trimmingCharacters(in: .whitespaces)
        let log = try server.stop()
        #expect(log.contains(path), "the log names the file")
        for secret in [code, link, "enter this code", "someone asked to reset"] {
            #expect(!log.contains(secret), "the log contains \(secret.prefix(24))…")
        }
        let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(!log.contains(token))
    }

    /// An https PUBLIC_URL is a production address: mail that only goes to files there sends
    /// nobody anything, so `serve` refuses to start unless a setting says it is deliberate.
    @Test func anHTTPSPublicURLWithoutSMTPStopsTheStartUnlessDeliberate() throws {
        let database = try TestDatabase.create()
        let refused = try Self.serveUntilExit(Self.environment(database, ["PUBLIC_URL": "https://dispatch.example.com"]))
        #expect(refused.status == 2, "serve kept running or exited \(String(describing: refused.status))")
        #expect(refused.log.contains("SMTP_HOST") && refused.log.contains("MAIL_FILE_DELIVERY"), "\(refused.log.suffix(800))")
        let both = try Self.serveUntilExit(Self.environment(database, [
            "SMTP_HOST": "127.0.0.1", "SMTP_TLS": "none", "SMTP_SENDER": "a@example.com", "MAIL_FILE_DELIVERY": "true",
        ]))
        #expect(both.status == 2)
        let deliberate = try ServedDispatchd(environment: Self.environment(database, [
            "PUBLIC_URL": "https://dispatch.example.com", "MAIL_FILE_DELIVERY": "true",
        ]))
        let log = try deliberate.stop()
        #expect(log.contains("no SMTP_HOST"))
    }

    /// `dispatchd serve` until it exits by itself; one still running after 60 s (it started
    /// instead of refusing) is stopped and answers a nil status.
    static func serveUntilExit(_ environment: [String: String]) throws -> (status: Int32?, log: String) {
        let process = Process()
        process.executableURL = try CommandLineTests.binary()
        process.arguments = ["serve"]
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        base["DATA_DIR"] = NSTemporaryDirectory() + "dispatchd-refusal-\(UUID().uuidString)"
        process.environment = base.merging(environment) { _, new in new }
        let logFile = URL(fileURLWithPath: NSTemporaryDirectory() + "dispatchd-refusal-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: logFile) }
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let exited = !process.isRunning
        if !exited { process.terminate() }
        process.waitUntilExit()
        return (exited ? process.terminationStatus : nil, try String(contentsOf: logFile, encoding: .utf8))
    }
}
