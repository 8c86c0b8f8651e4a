import Foundation

/// A local fake of Google's token endpoint and FCM HTTP v1 (scripts/fcm_fake.js, Node 20's
/// built-in `http`) on 127.0.0.1, with a service account whose RSA key this fake generates with
/// the `openssl` CLI: assertions are verified with its public half.
public final class FCMFake: @unchecked Sendable {
    public struct Request: Sendable, Decodable {
        public let path: String
        public let authorization: String?
        public let body: String
        public let status: Int
        public let token: String?
        public let problem: String?
        /// The client's port: the TCP connection the request came on.
        public let connection: Int
    }

    public static let project = "dispatch-test"
    public static let email = "push@dispatch-test.iam.gserviceaccount.com"

    private let fake: FakeProcess
    public var directory: String { fake.directory }
    public var port: Int { fake.port }

    public var url: String { "http://127.0.0.1:\(port)" }
    public var tokenURL: String { url + "/token" }
    /// The service account JSON the server reads.
    public var serviceAccountFile: String { directory + "/service-account.json" }

    public init() throws {
        fake = try FakeProcess(name: "fcm-fake")
        let directory = fake.directory
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", directory + "/key.pem"]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0, let pem = FileManager.default.contents(atPath: directory + "/key.pem") else {
            throw TestSupportError("openssl genpkey RSA failed")
        }
        let account: [String: Any] = ["type": "service_account", "project_id": Self.project, "client_email": Self.email,
                                      "private_key": String(decoding: pem, as: UTF8.self), "token_uri": "https://oauth2.googleapis.com/token"]
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: directory + "/service-account.json"))
        try fake.start("/usr/bin/env", ["node", SMTPCapture.root + "/scripts/fcm_fake.js", "--dir", directory,
                                         "--key", directory + "/key.pem", "--email", Self.email, "--project", Self.project])
    }

    /// How `messages:send` answers a device token's next requests, in order; then 200.
    public func script(_ answers: [String: [String]]) throws {
        try fake.writeScript(answers)
    }

    public func requests() throws -> [Request] {
        try fake.requests(as: Request.self)
    }
}
