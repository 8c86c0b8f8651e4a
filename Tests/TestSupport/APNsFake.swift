import Foundation

/// A local fake APNs for tests: scripts/apns_fake.js on Node 20's built-in `http2`, over TLS on
/// 127.0.0.1 with a certificate signed by a CA this fake generates with the `openssl` CLI
/// (`caFile` is what the sender must trust), verifying each JWT's ES256 signature with the
/// public half of an APNs-style P-256 key it also generates (`keyFile`, the `.p8`).
public final class APNsFake: @unchecked Sendable {
    /// One request as the fake saw it.
    public struct Request: Sendable, Decodable {
        public let path: String
        public let token: String
        public let method: String
        public let push_type: String?
        public let priority: String?
        public let topic: String?
        public let jwt: String
        /// Why the JWT was refused (nil: the signature verified).
        public let jwt_problem: String?
        public let body: String
        public let status: Int
        public let reason: String?
        /// The HTTP/2 connection (TLS session) it came on, numbered from 1.
        public let session: Int
    }

    public static let keyID = "TESTKEY123"
    public static let teamID = "TESTTEAM99"
    public static let topic = "com.example.dispatch"

    public let directory: String
    public private(set) var port = 0
    private let process: Process

    public var caFile: String { directory + "/ca.pem" }
    public var keyFile: String { directory + "/apns-key.p8" }
    public var url: String { "https://127.0.0.1:\(port)" }

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-fake-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.openssl(in: directory, [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca-key.pem",
             "-out", "ca.pem", "-days", "2", "-subj", "/CN=Dispatch test CA"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server-key.pem",
             "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-out", "server.pem",
             "-days", "2", "-extfile", "san.cnf"],
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "apns-key.p8"],
            ["pkey", "-in", "apns-key.p8", "-pubout", "-out", "apns-key.pub"],
        ], before: { try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: $0 + "/san.cnf")) })
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["node", SMTPCapture.root + "/scripts/apns_fake.js", "--dir", directory, "--cert", directory + "/server.pem",
                             "--key", directory + "/server-key.pem", "--public-key", directory + "/apns-key.pub",
                             "--key-id", Self.keyID, "--team", Self.teamID, "--topic", Self.topic]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: directory + "/ready.json"),
               let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = info["port"] as? Int {
                self.port = port
                return
            }
            guard process.isRunning else { throw TestSupportError("apns_fake.js exited (status \(process.terminationStatus))") }
            usleep(20_000)
        }
        process.terminate()
        throw TestSupportError("apns_fake.js did not become ready within 20 s")
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// How the fake answers `token`'s next requests, in order ("410:Unregistered:<ms>",
    /// "403:ExpiredProviderToken", "429:TooManyRequests", "503:ServiceUnavailable"); then 200.
    public func script(_ answers: [String: [String]]) throws {
        let data = try JSONSerialization.data(withJSONObject: answers)
        try data.write(to: URL(fileURLWithPath: directory + "/script.json.tmp"))
        // Atomic: the fake never reads half a script.
        guard rename(directory + "/script.json.tmp", directory + "/script.json") == 0 else {
            throw TestSupportError("cannot write the APNs fake's script")
        }
    }

    public func requests() throws -> [Request] {
        guard let data = FileManager.default.contents(atPath: directory + "/requests.jsonl") else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
    }

    public func requests(to token: String) throws -> [Request] {
        try requests().filter { $0.token == token }
    }

    private static func openssl(in directory: String, _ commands: [[String]], before: (String) throws -> Void) throws {
        try before(directory)
        for arguments in commands {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl"] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TestSupportError("openssl \(arguments.prefix(2).joined(separator: " ")) failed (status \(process.terminationStatus))")
            }
        }
    }
}
