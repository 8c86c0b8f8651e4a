import Foundation
import Postgres
import Testing
import TestSupport

/// `dispatchd seed-demo` on a real database: the counts asked for, data that obeys the
/// invariants the server maintains, and demo users who can sign in.
@Suite struct SeedDemoCommandTests {
    static let password = "demo password 123"
    static let smallTeam = ["--users", "12", "--admins", "2", "--listings", "40", "--tasks", "300", "--activities", "150",
                            "--notes", "600", "--subtasks", "90", "--seed", "7", "--password", password]

    static func seed(_ database: TestDatabase, _ extra: [String] = []) throws -> CommandLineTests.Result {
        try CommandLineTests.runDispatchd(["seed-demo"] + smallTeam + extra, environment: [
            "DATABASE_URL": try CommandLineDatabaseTests.url(for: database), "JWT_SECRET": CommandLineDatabaseTests.secret, "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789",
        ])
    }

    static func count(_ database: TestDatabase, _ sql: String) throws -> Int {
        let row = try #require(try database.pool.query(PostgresQuery(sql: "SELECT (\(sql))::int AS n")).first)
        return try row.decode("n")
    }

    @Test func seedDemoOnEmptyDatabaseCreatesRequestedCountsAndPrintsCredentials() throws {
        let database = try TestDatabase.create()
        let result = try Self.seed(database)
        #expect(result.status == 0, "\(result.standardError.suffix(800))")
        for (table, expected) in [("users", 12), ("user_passwords", 12), ("listings", 40), ("tasks", 300), ("activities", 150),
                                  ("notes", 600), ("subtasks", 90)] {
            #expect(try Self.count(database, "SELECT count(*) FROM \(table)") == expected, "\(table)")
        }
        #expect(try Self.count(database, "SELECT count(*) FROM users WHERE user_type = 'admin'") == 2)
        #expect(result.standardOutput.contains("realtor1@demo.dispatch.local"))
        #expect(result.standardOutput.contains("admin2@demo.dispatch.local"))
        #expect(result.standardOutput.contains("password: \(Self.password)"))
    }

    /// Each query counts rows that break an invariant; all must be zero.
    static let invariantViolations: [String] = [
        // Claims: both columns or neither; every claim has its event, by the claimer.
        "SELECT count(*) FROM tasks WHERE (claimed_by IS NULL) <> (claimed_at IS NULL)",
        """
        SELECT count(*) FROM tasks t WHERE t.claimed_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM claim_events e
            WHERE e.entity_type = 'task' AND e.entity_id = t.id AND e.action = 'claimed' AND e.user_id = t.claimed_by
              AND e.created_at = t.claimed_at)
        """,
        """
        SELECT count(*) FROM activities a WHERE a.claimed_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM claim_events e
            WHERE e.entity_type = 'activity' AND e.entity_id = a.id AND e.action = 'claimed' AND e.user_id = a.claimed_by)
        """,
        // Soft deletes and completion stamps match the status.
        "SELECT count(*) FROM tasks WHERE (status = 'deleted') <> (deleted_at IS NOT NULL)",
        "SELECT count(*) FROM activities WHERE (status = 'deleted') <> (deleted_at IS NOT NULL)",
        "SELECT count(*) FROM listings WHERE (status = 'deleted') <> (deleted_at IS NOT NULL)",
        "SELECT count(*) FROM tasks WHERE (status = 'completed') <> (completed_at IS NOT NULL)",
        "SELECT count(*) FROM listings WHERE status IN ('active', 'pending', 'closed') AND activated_at IS NULL",
        "SELECT count(*) FROM listings WHERE (status IN ('pending', 'closed')) <> (pending_at IS NOT NULL)",
        "SELECT count(*) FROM listings WHERE (status = 'closed') <> (closed_at IS NOT NULL)",
        // The latest status change of every row is its current status.
        """
        SELECT count(*) FROM tasks t WHERE t.status IS DISTINCT FROM (SELECT s.new_status FROM status_changes s
            WHERE s.entity_type = 'task' AND s.entity_id = t.id ORDER BY s.created_at DESC LIMIT 1)
        """,
        """
        SELECT count(*) FROM listings l WHERE l.status IS DISTINCT FROM (SELECT s.new_status FROM status_changes s
            WHERE s.entity_type = 'listing' AND s.entity_id = l.id ORDER BY s.created_at DESC LIMIT 1)
        """,
        // Children point at existing parents; times are ordered.
        """
        SELECT count(*) FROM notes n WHERE NOT EXISTS (SELECT 1 FROM tasks WHERE n.parent_type = 'task' AND id = n.parent_id)
            AND NOT EXISTS (SELECT 1 FROM activities WHERE n.parent_type = 'activity' AND id = n.parent_id)
            AND NOT EXISTS (SELECT 1 FROM listings WHERE n.parent_type = 'listing' AND id = n.parent_id)
        """,
        "SELECT count(*) FROM tasks WHERE updated_at < created_at OR updated_at > now() OR version < 1",
        "SELECT count(*) FROM notes WHERE updated_at < created_at OR (deleted_at IS NOT NULL AND deleted_at < created_at)",
        "SELECT count(*) FROM listings WHERE assigned_staff = owned_by",
    ]

    @Test func seedDemoDataKeepsTheServerInvariants() throws {
        let database = try TestDatabase.create()
        let result = try Self.seed(database)
        #expect(result.status == 0, "\(result.standardError.suffix(800))")
        for sql in Self.invariantViolations {
            #expect(try Self.count(database, sql) == 0, "\(sql)")
        }
        // The mix is realistic: some of each state exists.
        #expect(try Self.count(database, "SELECT count(*) FROM tasks WHERE claimed_by IS NOT NULL") > 30)
        #expect(try Self.count(database, "SELECT count(*) FROM tasks WHERE status = 'deleted'") > 0)
        #expect(try Self.count(database, "SELECT count(*) FROM tasks WHERE status = 'completed'") > 30)
        #expect(try Self.count(database, "SELECT count(*) FROM listings WHERE assigned_staff IS NOT NULL") > 5)
        #expect(try Self.count(database, "SELECT count(*) FROM claim_events WHERE action = 'released'") > 0)
    }

    @Test func seedDemoOnDatabaseWithContentRefusesUnlessReplaceAndReplaceIsReproducible() throws {
        let database = try TestDatabase.create()
        let first = try Self.seed(database)
        #expect(first.status == 0, "\(first.standardError.suffix(800))")
        let fingerprint = "SELECT md5(string_agg(id::text || status || coalesce(claimed_by::text, ''), ',' ORDER BY id)) AS f FROM tasks"
        let before: String = try #require(try database.pool.query(PostgresQuery(sql: fingerprint)).first).decode("f")

        let refused = try Self.seed(database)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("--replace"))

        let replaced = try Self.seed(database, ["--replace"])
        #expect(replaced.status == 0, "\(replaced.standardError.suffix(800))")
        let after: String = try #require(try database.pool.query(PostgresQuery(sql: fingerprint)).first).decode("f")
        #expect(after == before)
        #expect(try Self.count(database, "SELECT count(*) FROM tasks") == 300)
    }

    @Test func seedDemoWithInvalidCountExitsWithStatus2() throws {
        let result = try CommandLineTests.runDispatchd(["seed-demo", "--users", "1"], environment: [:])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--users must be between 2"))
    }

    @Test func seededRealtorSignsInWithTheSharedPassword() throws {
        let server = try AuthTestServer()
        let result = try Self.seed(server.database)
        #expect(result.status == 0, "\(result.standardError.suffix(800))")
        let tokens = try server.login("Realtor1@demo.dispatch.local", Self.password)
        let me = try server.request("GET", "/v1/me", token: tokens.access)
        #expect(me.status == 200)
        #expect(me.json?["user_type"] as? String == "realtor")
        let wrong = try server.request("POST", "/v1/auth/login",
                                       json: ["email": "realtor1@demo.dispatch.local", "password": "not the password"])
        #expect(wrong.status == 401)
    }
}
