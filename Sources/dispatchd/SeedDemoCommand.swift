import ArgumentParser
import Credentials
import Foundation
import Logging
import Postgres

struct SeedDemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-demo",
        abstract: "Fill an empty database with a realistic demo team (migrating first), for demos and benchmarks.",
        discussion: """
            Creates admin1…adminN and realtor1…realtorM @\(DemoDataset.emailDomain), all with the same \
            password, plus listings, tasks, activities, notes, subtasks, claims and history, in one \
            transaction. Refuses a database that already has content unless --replace is given.
            """
    )

    @Option(help: "Users in the team (admins included).")
    var users = 50
    @Option(help: "Admins among the users (default: one in ten, 1…5).")
    var admins: Int?
    @Option(help: "Listings.")
    var listings = 2_000
    @Option(help: "Tasks.")
    var tasks = 100_000
    @Option(help: "Activities.")
    var activities = 50_000
    @Option(help: "Notes (on tasks, activities and listings).")
    var notes = 200_000
    @Option(help: "Subtasks (checklists of three on tasks and activities).")
    var subtasks = 30_000
    @Option(help: "Random seed: the same seed and counts give the same rows and ids.")
    var seed = 1
    @Option(help: "Password of every demo user (at least 10 characters). Omit it to have one generated and printed.")
    var password: String?
    @Flag(help: "Delete ALL listings, tasks, activities, notes, subtasks and history, and earlier demo users, first.")
    var replace = false

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        let configuration = try options.loadOrExit()
        LoggingSetup.bootstrap(level: configuration.logLevel, format: configuration.logFormat)
        let logger = Logger(label: "dispatchd")
        do {
            let dataset = try makeDataset()
            if let password, password.count < AdminAccount.minimumPasswordLength {
                throw ConfigurationError("--password must be at least \(AdminAccount.minimumPasswordLength) characters")
            }
            let chosenPassword = try password ?? SecureRandom.token(byteCount: 12)
            // One Argon2id hash for everybody: the KDF is deliberately costly (19 MiB and tens of
            // ms per hash), so hashing per user would dominate seeding a big team. Identical hashes
            // reveal that the passwords are identical, which for demo accounts is the point.
            let hash = try PasswordHasher().hash(chosenPassword)
            try DatabaseSession.run(configuration: configuration, logger: logger) { pool in
                try Migrator(directoryPath: configuration.migrationsDirectory, logger: logger).migrate(pool: pool)
                let start = ContinuousClock.now
                let steps = try DemoSeeder(dataset: dataset, passwordHash: hash, replace: replace).run(pool: pool)
                let total = ContinuousClock.now - start
                print(Self.report(dataset: dataset, steps: steps, total: total, password: chosenPassword))
            }
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("dispatchd: \(error.message)\n".utf8))
            throw ExitCode(2)
        } catch let error as DemoSeeder.Refusal {
            FileHandle.standardError.write(Data("dispatchd: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
    }

    private func makeDataset() throws(ConfigurationError) -> DemoDataset {
        var dataset = DemoDataset()
        dataset.users = users
        dataset.admins = admins ?? DemoDataset.defaultAdmins(forUsers: users)
        dataset.listings = listings
        dataset.tasks = tasks
        dataset.activities = activities
        dataset.notes = notes
        dataset.subtasks = subtasks
        dataset.seed = seed
        try dataset.validate()
        return dataset
    }

    static func report(dataset: DemoDataset, steps: [DemoSeeder.Step], total: Duration, password: String) -> String {
        var lines = ["Seeded demo data (seed \(dataset.seed)) in \(format(seconds: total)):"]
        for step in steps {
            let rows = step.rows > 0 ? step.rows.formatted(.number.grouping(.automatic)) : ""
            lines.append("  " + step.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                + String(repeating: " ", count: max(0, 10 - rows.count)) + rows
                + String(format: "  %6.2f s", step.seconds))
        }
        lines += [
            "",
            "Sign in with any demo user; they all have the same password:",
            "  admins:   \(DemoDataset.adminEmail(1)) … \(DemoDataset.adminEmail(dataset.admins))",
            "  realtors: \(DemoDataset.realtorEmail(1)) … \(DemoDataset.realtorEmail(dataset.realtors))"
                + " (realtor1 is the busiest)",
            "  password: \(password)",
        ]
        return lines.joined(separator: "\n")
    }

    private static func format(seconds duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f s", seconds)
    }
}
