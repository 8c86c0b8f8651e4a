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
        /// Requests awaiting their answer when this one arrived, itself included.
        public let in_flight: Int
    }

    public static let keyID = "TESTKEY123"
    public static let teamID = "TESTTEAM99"
    public static let topic = "com.example.dispatch"

    private let fake: FakeProcess
    public var directory: String { fake.directory }
    public var port: Int { fake.port }

    public var caFile: String { directory + "/ca.pem" }
    public var keyFile: String { directory + "/apns-key.p8" }
    public var url: String { "https://127.0.0.1:\(port)" }

    public init() throws {
        fake = try FakeProcess(name: "apns-fake")
        let directory = fake.directory
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
        try fake.start("/usr/bin/env", ["node", SMTPCapture.root + "/scripts/apns_fake.js", "--dir", directory,
                                         "--cert", directory + "/server.pem", "--key", directory + "/server-key.pem",
                                         "--public-key", directory + "/apns-key.pub", "--key-id", Self.keyID,
                                         "--team", Self.teamID, "--topic", Self.topic])
    }

    /// How the fake answers `token`'s next requests, in order ("410:Unregistered:<ms>",
    /// "403:ExpiredProviderToken", "429:TooManyRequests", "503:ServiceUnavailable", "wait-<ms>":
    /// 200 that much later); then 200.
    public func script(_ answers: [String: [String]]) throws {
        try fake.writeScript(answers)
    }

    public func requests() throws -> [Request] {
        try fake.requests(as: Request.self)
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
