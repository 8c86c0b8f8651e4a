import Foundation
import Testing
import TestSupport

/// `dispatchd serve` with LOG_FORMAT=json, as operators run it: each request leaves one JSON
/// line with what an operator needs, and nothing secret.
@Suite struct RequestLogTests {
    static let secret = String(repeating: "j", count: 40)
    static let email = "logs@example.com"
    static let password = "a log-worthy passphrase"

    @Test func jsonRequestLineHasRequestFieldsAndNoCredentialsOrBody() throws {
        let database = try TestDatabase.create()
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": Self.secret, "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "LOG_FORMAT": "json",
                           "HOST": "127.0.0.1", "PORT": "0"]
        let created = try CommandLineTests.runDispatchd(
            ["create-admin", "--email", Self.email, "--name", "Logan", "--password", Self.password], environment: environment
        )
        #expect(created.status == 0, "\(created.standardError.suffix(600))")

        let server = try ServedDispatchd(environment: environment)
        let client = TestHTTPClient(port: server.port)
        let loginBody = Array(try JSONSerialization.data(withJSONObject: ["email": Self.email, "password": Self.password]))
        let login = try client.perform(method: "POST", path: "/v1/auth/login",
                                       headers: ["Content-Type": "application/json"], body: loginBody)
        let token = try #require(login.json?["access_token"] as? String)
        let userID = try #require((login.json?["user"] as? [String: Any])?["id"] as? String)
        let patchBody = Array(try JSONSerialization.data(withJSONObject: ["name": "Logan Body Marker"]))
        let patch = try client.perform(method: "PATCH", path: "/v1/me",
                                       headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json",
                                                 "X-Request-Id": "log-test-request-1"],
                                       body: patchBody)
        #expect(patch.status == 200)
        let log = try server.stop()

        let lines = log.split(separator: "\n").filter { $0.hasPrefix("{") }
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let line = try #require(objects.first { $0["request_id"] as? String == "log-test-request-1" })
        #expect(line["msg"] as? String == "request")
        #expect(line["method"] as? String == "PATCH")
        #expect(line["route"] as? String == "/v1/me")
        #expect(line["status"] as? Int == 200)
        #expect(line["duration_ms"] is Double || line["duration_ms"] is Int)
        #expect(line["user_id"] as? String == userID)

        let loginLine = try #require(objects.first { $0["route"] as? String == "/v1/auth/login" })
        #expect(loginLine["status"] as? Int == 200)
        #expect(loginLine["user_id"] == nil)

        for secret in [Self.password, token, "Logan Body Marker"] {
            #expect(!log.contains(secret), "the log contains \(secret.prefix(8))…")
        }
    }
}
