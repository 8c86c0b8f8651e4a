import ArgumentParser
import Foundation
import Logging
import Postgres
import Store

struct ExplainQueriesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain-queries",
        abstract: "Benchmark tool: EXPLAIN (ANALYZE, BUFFERS) the visibility-filtered reads as one user; exit 1 on a sequential scan of a big table or a costly plan.",
        discussion: "Run it on a seeded database (seed-demo). Used by bench/explain."
    )

    @Option(name: .customLong("as"), help: "Email of the user whose visibility applies.")
    var email = DemoDataset.realtorEmail(1)

    @Option(help: "Tables with more rows than this count as big: a sequential scan on them is flagged.")
    var bigTableRows = 10_000

    @Option(help: "Flag plans that touch more shared buffers (8 KiB pages, hit or read) than this: a filtered walk of a whole index is no sequential scan, but as costly. Unlike time, it does not depend on how busy the machine is.")
    var maxBuffers = 10_000

    @Option(help: "Flag queries slower than this many milliseconds (only gross outliers: time depends on the machine's load).")
    var slowMilliseconds = 250.0

    @Option(help: "Queries whose name contains this text are reported but never flagged (e.g. the sync feed, which reads every visible row by design).")
    var exempt: [String] = []

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        let configuration = try options.loadOrExit()
        LoggingSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "dispatchd")
        var flagged = 0
        try DatabaseSession.run(configuration: configuration, logger: logger) { pool in
            try pool.withConnection { connection in
                guard let user = try connection.query("""
                    SELECT id, user_type FROM users WHERE lower(email) = lower(\(email))
                    """).first else {
                    FileHandle.standardError.write(Data("dispatchd: no user with email \(email) (seed the database with seed-demo first)\n".utf8))
                    throw ExitCode(1)
                }
                let viewer = Viewer(userID: try user.decode("id"), isAdmin: try user.decode("user_type", as: String.self) == "admin")
                let bigTables = try Self.bigTables(connection, threshold: bigTableRows)
                let samples = try VisibilityQueries.samples(connection, viewer)
                var summary: [String] = []
                for query in VisibilityQueries.all(viewer, samples: samples) {
                    let explained = PostgresQuery(sql: "EXPLAIN (ANALYZE, BUFFERS) " + query.query.sql, binds: query.query.binds)
                    let lines = try connection.query(explained).map { try $0.decode(0, as: String.self) }
                    let seqScans = Self.sequentialScans(in: lines, of: bigTables)
                    let milliseconds = lines.last { $0.hasPrefix("Execution Time:") }
                        .flatMap { Double($0.dropFirst("Execution Time: ".count).prefix { $0 != " " }) } ?? 0
                    let buffers = Self.rootBuffers(in: lines)
                    var problems = seqScans.map { "SEQ SCAN \($0)" }
                    if buffers > maxBuffers { problems.append("BUFFERS \(buffers) > \(maxBuffers)") }
                    if milliseconds > slowMilliseconds { problems.append("SLOW > \(slowMilliseconds) ms") }
                    let isExempt = exempt.contains { query.name.contains($0) }
                    if !isExempt { flagged += problems.count }
                    print("== \(query.name)\n\(query.query.sql)\n")
                    print(lines.joined(separator: "\n"))
                    print(problems.isEmpty ? "" : "!! \(problems.joined(separator: ", "))\(isExempt ? " (exempt)" : "")\n")
                    summary.append(query.name.padding(toLength: 48, withPad: " ", startingAt: 0)
                        + String(format: " %9.3f ms %7d buffers", milliseconds, buffers)
                        + (problems.isEmpty ? "" : "   " + problems.joined(separator: ", ") + (isExempt ? " (exempt)" : "")))
                }
                print("== summary (as \(email), \(viewer.isAdmin ? "admin" : "realtor"); big tables: \(bigTables.sorted().joined(separator: ", ")))")
                print(summary.joined(separator: "\n"))
            }
        }
        if flagged > 0 { throw ExitCode(1) }
    }

    static func bigTables(_ connection: PostgresConnection, threshold: Int) throws -> Set<String> {
        let rows = try connection.query("""
            SELECT relname::text AS name FROM pg_class
            WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND reltuples > \(threshold)
            """)
        return Set(try rows.map { try $0.decode("name", as: String.self) })
    }

    /// Shared buffers (hit + read) of the root node, which include every node below it.
    static func rootBuffers(in plan: [String]) -> Int {
        guard let line = plan.prefix(while: { !$0.hasPrefix("Planning") })
            .first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Buffers:") }) else { return 0 }
        var total = 0
        for key in ["hit=", "read="] {
            guard let shared = line.range(of: "shared "), let range = line.range(of: key, range: shared.upperBound..<line.endIndex) else { continue }
            total += Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return total
    }

    /// Tables read by a `Seq Scan on <table>` node (parallel ones included) that are big.
    static func sequentialScans(in plan: [String], of bigTables: Set<String>) -> [String] {
        plan.compactMap { line -> String? in
            guard let range = line.range(of: "Seq Scan on ") else { return nil }
            let table = line[range.upperBound...].prefix { $0 != " " }
            return bigTables.contains(String(table)) ? String(table) : nil
        }
    }
}
