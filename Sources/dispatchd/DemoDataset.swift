/// How much demo data `seed-demo` creates, and from which seed.
///
/// Every value here ends up spliced into the generator's SQL as a literal (see `DemoSQL`), which
/// is safe only because they are integers validated by `validate()`.
struct DemoDataset: Sendable {
    var users = 50
    var admins = 5
    var listings = 2_000
    var tasks = 100_000
    var activities = 50_000
    var notes = 200_000
    var subtasks = 30_000
    /// Same seed and counts → the same rows, ids and relationships (timestamps are relative
    /// to the time of seeding).
    var seed = 1

    static let emailDomain = "demo.dispatch.local"

    var realtors: Int { users - admins }

    /// ~5 admins in a team of 50: one in ten, at least one, at most five.
    static func defaultAdmins(forUsers users: Int) -> Int {
        min(5, max(1, users / 10))
    }

    static func adminEmail(_ number: Int) -> String { "admin\(number)@\(emailDomain)" }
    static func realtorEmail(_ number: Int) -> String { "realtor\(number)@\(emailDomain)" }

    func validate() throws(ConfigurationError) {
        // Bounded so that every derived literal (seed * 1000 + salt, row numbers) fits the
        // SQL types it is spliced into.
        let limit = 50_000_000
        let counts = [("--listings", listings), ("--tasks", tasks), ("--activities", activities)]
        for (name, value) in counts where !(1...limit).contains(value) {
            throw ConfigurationError("\(name) must be between 1 and \(limit) (got \(value))")
        }
        for (name, value) in [("--notes", notes), ("--subtasks", subtasks)] where !(0...limit).contains(value) {
            throw ConfigurationError("\(name) must be between 0 and \(limit) (got \(value))")
        }
        guard (2...100_000).contains(users) else {
            throw ConfigurationError("--users must be between 2 and 100000 (got \(users))")
        }
        guard (1...(users - 1)).contains(admins) else {
            throw ConfigurationError("--admins must be between 1 and \(users - 1) so that realtors remain (got \(admins))")
        }
        guard (0...1_000_000_000).contains(seed) else {
            throw ConfigurationError("--seed must be between 0 and 1000000000 (got \(seed))")
        }
    }
}
