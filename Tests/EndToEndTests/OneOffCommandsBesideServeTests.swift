import Foundation
import Testing

/// Every command that uses the embedded database, run beside a live `serve` on the same
/// DATA_DIR as the docs tell operators to (docs/operators/console.md, backups.md): each stops
/// PostgreSQL only if it started it, so the server keeps answering real requests.
@Suite struct OneOffCommandsBesideServeTests {
    @Test func eachCommandLeavesTheServersEmbeddedDatabaseRunning() throws {
        let dataDirectory = NSTemporaryDirectory() + "dispatch-oneoff-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let environment = ["DATA_DIR": dataDirectory, "HOST": "127.0.0.1", "PORT": "0", "LOG_LEVEL": "info", "BACKUP_DAILY": "off"]
        let server = try ServedDispatchd(environment: environment, bannerUntil: "password:")
        let password = try #require(ReadmeWalkthroughTests.value(after: "password:", in: server.banner), "banner: \(server.banner)")
        let client = TestHTTPClient(port: server.port, timeoutSeconds: 30)
        let login = try client.perform(method: "POST", path: "/v1/auth/login", headers: ["Content-Type": "application/json"],
                                       body: Array(try JSONSerialization.data(withJSONObject: ["email": "admin@dispatch.local", "password": password])))
        let token = try #require(login.json?["access_token"] as? String, "\(String(decoding: login.body, as: UTF8.self))")

        let file = URL(fileURLWithPath: dataDirectory).appendingPathComponent("beside-serve.tar").path
        let commands: [(arguments: [String], mustSucceed: Bool)] = [
            (["create-admin", "--email", "second@example.com", "--name", "Second", "--password", "long enough password"], true),
            (["migrate"], true),
            (["seed-demo", "--users", "3", "--listings", "2", "--tasks", "4", "--activities", "2", "--notes", "3",
              "--subtasks", "3", "--password", "demo-password-1"], true),
            (["explain-queries", "--as", "realtor1@demo.dispatch.local"], false),
            (["backup", "--output", file], true),
            (["restore", "--verify", file], true),
            // Refused (the server is connected), but it opened and closed a session all the same.
            (["restore", file], false),
        ]
        for command in commands {
            let result = try CommandLineTests.runDispatchd(command.arguments, environment: environment)
            if command.mustSucceed {
                #expect(result.status == 0, "\(command.arguments[0]): \(result.standardError.suffix(600))")
            }
            #expect(!result.standardError.contains("embedded PostgreSQL stopped"), "\(command.arguments[0]) stopped the server's database")
            let answer = try client.perform(method: "GET", path: "/v1/tasks", headers: ["Authorization": "Bearer \(token)"])
            #expect(answer.status == 200, "after \(command.arguments[0]): \(answer.status) \(String(decoding: answer.body, as: UTF8.self).prefix(300))")
        }
        let created = try client.perform(method: "POST", path: "/v1/tasks",
                                         headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                         body: Array(#"{"title":"still serving"}"#.utf8))
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self).prefix(300))")
        // The server started the database, so stopping the server stops it.
        let log = try server.stop()
        #expect(log.contains("embedded PostgreSQL stopped"), "\(log.suffix(600))")
    }
}
