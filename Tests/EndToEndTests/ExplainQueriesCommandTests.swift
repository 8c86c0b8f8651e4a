import Foundation
import Postgres
import Testing
import TestSupport

/// `dispatchd explain-queries` (the engine of bench/explain) on a small seeded database.
@Suite struct ExplainQueriesCommandTests {
    static func explain(_ database: TestDatabase, _ arguments: [String]) throws -> CommandLineTests.Result {
        try CommandLineTests.runDispatchd(["explain-queries"] + arguments, environment: [
            "DATABASE_URL": try CommandLineDatabaseTests.url(for: database), "JWT_SECRET": CommandLineDatabaseTests.secret, "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789",
        ])
    }

    @Test func explainAsSeededRealtorPrintsEveryPlanAndFlagsSequentialScansOfBigTables() throws {
        let database = try TestDatabase.create()
        let seeded = try SeedDemoCommandTests.seed(database)
        #expect(seeded.status == 0, "\(seeded.standardError.suffix(800))")

        // Nothing counts as big on a small database: plans are printed, nothing is flagged.
        let calm = try Self.explain(database, ["--as", "realtor1@demo.dispatch.local", "--slow-milliseconds", "10000", "--max-buffers", "1000000"])
        #expect(calm.status == 0, "\(calm.standardOutput.suffix(800))\(calm.standardError.suffix(400))")
        for name in ["GET /v1/tasks?limit=50", "GET /v1/listings?limit=50", "GET /v1/tasks/{id}/notes", "== summary"] {
            #expect(calm.standardOutput.contains(name), "\(name)")
        }
        #expect(calm.standardOutput.contains("Execution Time:"))

        // With every table counted as big, the sequential scans a tiny database gets are flagged.
        let strict = try Self.explain(database, ["--as", "realtor1@demo.dispatch.local", "--big-table-rows", "0",
                                                 "--slow-milliseconds", "10000", "--max-buffers", "1000000"])
        #expect(strict.status == 1)
        #expect(strict.standardOutput.contains("SEQ SCAN"))

        // Any plan touches a buffer, so a budget of none flags every query.
        let costly = try Self.explain(database, ["--as", "realtor1@demo.dispatch.local", "--big-table-rows", "100000000",
                                                 "--slow-milliseconds", "10000", "--max-buffers", "0"])
        #expect(costly.status == 1)
        #expect(costly.standardOutput.contains("BUFFERS"))
    }

    @Test func explainAsUnknownUserFails() throws {
        let database = try TestDatabase.create()
        let result = try Self.explain(database, ["--as", "nobody@example.com"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("no user with email nobody@example.com"))
    }
}
