import Foundation
import Postgres
import Testing
import TestSupport

/// `dispatchd migrate` and `create-admin` against a real, initially empty database.
@Suite struct CommandLineDatabaseTests {
    static let secret = String(repeating: "k", count: 40)

    @Test func migrateOnEmptyDatabaseAppliesEverythingAndLogsJSONLines() throws {
        let database = try TestDatabase.create(migrations: nil)
        let result = try CommandLineTests.runDispatchd(["migrate"], environment: [
            "DATABASE_URL": try Self.url(for: database), "JWT_SECRET": Self.secret, "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "LOG_FORMAT": "json",
        ])
        #expect(result.status == 0, "\(result.standardError.suffix(600))")
        let status = try Migrator(directoryPath: ProjectPaths.migrations).status(pool: database.pool)
        let upToDate = status.isUpToDate
        #expect(upToDate)
        // libpq NOTICE lines are not ours; every log line the server writes is one JSON object.
        let logLines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(!logLines.isEmpty)
        for line in logLines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String)
            #expect(object?["msg"] is String)
        }
    }

    @Test func createAdminWithoutPasswordPrintsGeneratedOneAndStoresOnlyItsHash() throws {
        let database = try TestDatabase.create(migrations: nil)
        let environment = ["DATABASE_URL": try Self.url(for: database), "JWT_SECRET": Self.secret, "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789"]
        let result = try CommandLineTests.runDispatchd(
            ["create-admin", "--email", "Chief@Example.com", "--name", "Chief"], environment: environment
        )
        #expect(result.status == 0, "\(result.standardError.suffix(600))")
        let passwordLine = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("Password: ") })
        let password = String(passwordLine.dropFirst("Password: ".count))
        #expect(password.count >= 20)

        let row = try #require(try database.pool.query("""
            SELECT u.user_type, p.hash FROM users u JOIN user_passwords p ON p.user_id = u.id
            WHERE lower(u.email) = lower('chief@example.com')
            """).first)
        #expect(try row.decode("user_type", as: String.self) == "admin")
        let hash: String = try row.decode("hash")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(!hash.contains(password))

        let again = try CommandLineTests.runDispatchd(
            ["create-admin", "--email", "chief@example.com", "--name", "Other", "--password", "long enough"],
            environment: environment
        )
        #expect(again.status == 1)
        #expect(again.standardError.contains("already exists"))
    }

    /// The test database's keyword conninfo as the URL form DATABASE_URL requires.
    static func url(for database: TestDatabase) throws -> String {
        if database.conninfo.hasPrefix("postgres://") || database.conninfo.hasPrefix("postgresql://") {
            return database.conninfo
        }
        var fields: [String: String] = [:]
        for pair in database.conninfo.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        }
        let dbname = try #require(fields["dbname"])
        var query: [String] = []
        for key in ["host", "port", "user", "password"] {
            if let value = fields[key] {
                query.append("\(key)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)")
            }
        }
        return "postgresql:///\(dbname)?" + query.joined(separator: "&")
    }
}
