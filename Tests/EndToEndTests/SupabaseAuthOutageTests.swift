import Foundation
import Postgres
import Testing

/// A database outage must never look like a dead session: supabase-swift deletes its stored
/// session on `session_not_found`, `refresh_token_not_found` and the like, which would sign
/// every user out during a failover. `/auth/v1` answers 503 with Retry-After instead.
@Suite struct SupabaseAuthOutageTests {
    static let sessionEndingCodes: Set<String> = ["session_not_found", "session_expired", "refresh_token_not_found",
                                                   "refresh_token_already_used"]

    @Test func databaseOutageIs503AndNeverASessionEndingCode() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let session = try client.signIn()

        // The outage: this test's database refuses connections and its open ones are cut.
        let admin = try PostgresConnection(app.database.cluster.baseConninfo)
        defer { admin.close() }
        try admin.runTrustedScript("ALTER DATABASE \"\(app.database.name)\" ALLOW_CONNECTIONS false")
        _ = try admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(app.database.name)")
        defer { try? admin.runTrustedScript("ALTER DATABASE \"\(app.database.name)\" ALLOW_CONNECTIONS true") }

        let answers = [
            try client.refresh(session.refresh),
            try client.call("POST", "/auth/v1/token?grant_type=password",
                            json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password]),
            try client.call("GET", "/auth/v1/user", token: session.access),
        ]
        for answer in answers {
            #expect(answer.status == 503, "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.header("Retry-After") != nil)
            let code = try #require(answer.goTrueCode)
            #expect(!Self.sessionEndingCodes.contains(code))
        }

        try admin.runTrustedScript("ALTER DATABASE \"\(app.database.name)\" ALLOW_CONNECTIONS true")
        var recovered = try client.refresh(session.refresh)
        for _ in 0..<50 where recovered.status == 503 {
            Thread.sleep(forTimeInterval: 0.1)
            recovered = try client.refresh(session.refresh)
        }
        #expect(recovered.status == 200)
    }
}
