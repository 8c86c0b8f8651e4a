import Foundation
import Testing
import TestSupport

/// A value in the database that the code does not know (here written past a dropped CHECK,
/// as a newer migration or a hand edit could) fails the request with a logged 500 instead of
/// being read as a guessed default (`open`, `deleted`, `draft`) and acted on.
@Suite struct UnknownStoredValueTests {
    static let secret = String(repeating: "u", count: 40)
    static let email = "unknown-values@example.com"
    static let password = "an unknown-value passphrase"

    @Test func unknownEnumValuesAnswer500AndAreLoggedAsErrors() throws {
        let database = try TestDatabase.create()
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": Self.secret, "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "LOG_FORMAT": "json",
                           "HOST": "127.0.0.1", "PORT": "0"]
        let created = try CommandLineTests.runDispatchd(
            ["create-admin", "--email", Self.email, "--name", "Una", "--password", Self.password], environment: environment
        )
        #expect(created.status == 0, "\(created.standardError.suffix(600))")
        let server = try ServedDispatchd(environment: environment)
        let client = TestHTTPClient(port: server.port)
        func send(_ method: String, _ path: String, _ json: [String: Any]? = nil, token: String? = nil) throws -> TestHTTPClient.Response {
            var headers = ["Content-Type": "application/json"]
            if let token { headers["Authorization"] = "Bearer \(token)" }
            let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
            return try client.perform(method: method, path: path, headers: headers, body: body)
        }
        let token = try #require(try send("POST", "/v1/auth/login", ["email": Self.email, "password": Self.password])
            .json?["access_token"] as? String)
        let user = try #require(try send("POST", "/v1/users", ["email": "odd@example.com", "name": "Odd", "user_type": "realtor",
                                                              "password": Self.password], token: token).json?["id"] as? String)
        let listing = try #require(try send("POST", "/v1/listings", ["address": "1 Odd St"], token: token).json?["id"] as? String)
        let task = try #require(try send("POST", "/v1/tasks", ["title": "Odd task"], token: token).json?["id"] as? String)
        let rita = try #require(try send("POST", "/v1/users", ["email": "rita@example.com", "name": "Rita", "user_type": "realtor",
                                                              "password": Self.password], token: token).json?["id"] as? String)
        let ritaToken = try #require(try send("POST", "/v1/auth/login", ["email": "rita@example.com", "password": Self.password])
            .json?["access_token"] as? String)
        let since = try #require(try send("GET", "/v1/sync", token: ritaToken).json?["next_since"] as? String)

        let connection = try database.connect()
        defer { connection.close() }
        try connection.runTrustedScript("""
            ALTER TABLE users DROP CONSTRAINT users_user_type_check;
            ALTER TABLE listings DROP CONSTRAINT listings_status_check;
            ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
            UPDATE users SET user_type = 'broker' WHERE id = '\(user)';
            UPDATE listings SET status = 'archived' WHERE id = '\(listing)';
            UPDATE tasks SET status = 'archived' WHERE id = '\(task)';
            ALTER TABLE sync_access_changes DROP CONSTRAINT sync_access_changes_entity_type_check;
            INSERT INTO sync_access_changes (user_id, entity_type, entity_id, granted)
            VALUES ('\(rita)', 'building', gen_random_uuid(), true);
            """)

        // Before: the user read was an unlogged 500 (a bare decoding error); the listing edit
        // went ahead as if `draft`, the task edit as if `open` (writing that status back), and
        // the claim answered 409 `not_claimable` as if `deleted`; the sync page took the grant
        // of an unknown kind for an activity.
        let reads: [(String, String, [String: Any]?)] = [
            ("GET", "/v1/users/\(user)", nil),
            ("PATCH", "/v1/listings/\(listing)", ["address": "2 Odd St"]),
            ("PATCH", "/v1/tasks/\(task)", ["title": "Renamed"]),
            ("POST", "/v1/tasks/\(task)/claim", nil),
            ("GET", "/v1/sync?since=\(since)", nil),
        ]
        for (method, path, json) in reads {
            let response = try send(method, path, json, token: path.hasPrefix("/v1/sync") ? ritaToken : token)
            #expect(response.status == 500, "\(method) \(path)")
            #expect(response.json?["code"] as? String == "internal_error", "\(method) \(path)")
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(!body.contains("broker") && !body.contains("archived") && !body.contains("status"), "\(body)")
        }
        let taskID = try #require(UUID(uuidString: task))
        let stored = try connection.query("SELECT status, title FROM tasks WHERE id = \(taskID)")
        #expect(try stored.first?.decode("status", as: String.self) == "archived")
        #expect(try stored.first?.decode("title", as: String.self) == "Odd task")

        let log = try server.stop()
        let errors = try log.split(separator: "\n").filter { $0.hasPrefix("{") }
            .map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            .filter { $0["level"] as? String == "error" }
            .compactMap { $0["error"] as? String }
        #expect(errors.filter { $0.contains(#"unknown value "broker" in users.user_type"#) }.count == 1, "\(errors)")
        #expect(errors.filter { $0.contains(#"unknown value "archived" in listings.status"#) }.count == 1, "\(errors)")
        #expect(errors.filter { $0.contains(#"unknown value "archived" in tasks.status"#) }.count == 2, "\(errors)")
        #expect(errors.filter { $0.contains(#"unknown value "building" in sync_access_changes.entity_type"#) }.count == 1,
                "\(errors)")
    }
}
