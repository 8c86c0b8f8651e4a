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
    }

    public static let project = "dispatch-test"
    public static let email = "push@dispatch-test.iam.gserviceaccount.com"

    public let directory: String
    public private(set) var port = 0
    private let process: Process

    public var url: String { "http://127.0.0.1:\(port)" }
    public var tokenURL: String { url + "/token" }
    /// The service account JSON the server reads.
    public var serviceAccountFile: String { directory + "/service-account.json" }

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-fake-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
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
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["node", SMTPCapture.root + "/scripts/fcm_fake.js", "--dir", directory, "--key", directory + "/key.pem",
                             "--email", Self.email, "--project", Self.project]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: directory + "/ready.json"),
               let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = info["port"] as? Int {
                self.port = port
                return
            }
            guard process.isRunning else { throw TestSupportError("fcm_fake.js exited (status \(process.terminationStatus))") }
            usleep(20_000)
        }
        process.terminate()
        throw TestSupportError("fcm_fake.js did not become ready within 20 s")
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// How `messages:send` answers a device token's next requests, in order; then 200.
    public func script(_ answers: [String: [String]]) throws {
        try JSONSerialization.data(withJSONObject: answers).write(to: URL(fileURLWithPath: directory + "/script.json.tmp"))
        guard rename(directory + "/script.json.tmp", directory + "/script.json") == 0 else {
            throw TestSupportError("cannot write the FCM fake's script")
        }
    }

    public func requests() throws -> [Request] {
        guard let data = FileManager.default.contents(atPath: directory + "/requests.jsonl") else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
    }
}
