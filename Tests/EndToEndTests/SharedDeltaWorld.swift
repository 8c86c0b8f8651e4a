import Foundation
import Postgres
import Store
import TestSupport

/// A random team for the shared delta read's tests (SyncSharedDeltaTests): an admin,
/// realtors, listings with owners and staff, tasks and activities declared and claimed by
/// various users, notes, subtasks, claim events and status changes, all written with SQL
/// from a seeded generator, then random batches of writes of every kind the feed sees.
final class SharedDeltaWorld {
    let database: TestDatabase
    private var random: SeededGenerator
    private(set) var admin = UUID()
    private(set) var realtors: [UUID] = []
    private(set) var listings: [UUID] = []
    private(set) var items: [(table: String, id: UUID)] = []

    var pool: PostgresPool { database.pool }
    var viewers: [Viewer] { [Viewer(userID: admin, isAdmin: true)] + realtors.map { Viewer(userID: $0, isAdmin: false) } }

    init(seed: UInt64, realtorCount: Int = 6) throws {
        database = try TestDatabase.create(poolSize: 4)
        random = SeededGenerator(seed: seed)
        admin = try user("admin", type: "admin")
        realtors = try (0..<realtorCount).map { try user("realtor\($0)", type: "realtor") }
        for _ in 0..<5 { try newListing() }
        for index in 0..<14 { try newItem(table: index % 3 == 2 ? "activities" : "tasks") }
        for _ in 0..<10 { try childWrite() }
    }

    /// The cursor of a client that holds everything committed so far.
    func cursor() throws -> SyncCursor {
        let audience = try SyncFeed(pool: pool).audience(since: nil)
        return SyncCursor(since: audience.snapshot, horizon: audience.horizon)
    }

    /// `count` random writes, some of them several in one transaction.
    func writeBatch(_ count: Int) throws {
        for _ in 0..<count {
            switch random.below(12) {
            case 0: try execute("UPDATE \(unsafeSQL: pickItem().table) SET title = \(word()) WHERE id = \(pickItem().id)")
            case 1:
                let item = pickItem()
                try execute("UPDATE \(unsafeSQL: item.table) SET claimed_by = \(pickUser()), claimed_at = now() WHERE id = \(item.id)")
            case 2:
                let item = pickItem()
                try execute("UPDATE \(unsafeSQL: item.table) SET claimed_by = NULL, claimed_at = NULL WHERE id = \(item.id)")
            case 3:
                let item = pickItem()
                try execute("UPDATE \(unsafeSQL: item.table) SET listing_id = \(maybeListing()) WHERE id = \(item.id)")
            case 4: try execute("UPDATE listings SET assigned_staff = \(maybe(pickUser())) WHERE id = \(pick(listings))")
            case 5: try execute("UPDATE listings SET owned_by = \(pickUser()) WHERE id = \(pick(listings))")
            case 6: try newItem(table: random.below(2) == 0 ? "tasks" : "activities")
            case 7: try execute("UPDATE users SET deactivated_at = now() WHERE id = \(pick(realtors)) AND deactivated_at IS NULL")
            case 8: try execute("UPDATE users SET name = \(word()) WHERE id = \(pick(realtors + [admin]))")
            case 9: try execute("DELETE FROM subtasks WHERE id = (SELECT id FROM subtasks ORDER BY id LIMIT 1)")
            case 10:
                // Several writes in one transaction.
                try pool.withTransaction { connection in
                    let item = self.pickItem()
                    try connection.execute("UPDATE \(unsafeSQL: item.table) SET title = \(self.word()) WHERE id = \(item.id)")
                    try connection.execute("UPDATE listings SET price = 100 WHERE id = \(self.pick(self.listings))")
                }
            default: try childWrite()
            }
        }
    }

    /// A task whose description is `bytes` long, to make byte budgets cut pages.
    func bigItem(bytes: Int) throws {
        try execute("INSERT INTO tasks (title, description, declared_by) VALUES ('big', \(String(repeating: "x", count: bytes)), \(pickUser()))")
    }

    func execute(_ sql: PostgresQuery) throws {
        _ = try pool.query(sql)
    }

    private func user(_ name: String, type: String) throws -> UUID {
        try insert("INSERT INTO users (name, email, user_type) VALUES (\(name), \(name + "-" + UUID().uuidString.prefix(8) + "@example.com"), \(type)) RETURNING id")
    }

    private func newListing() throws {
        listings.append(try insert("INSERT INTO listings (address, owned_by, assigned_staff) VALUES ('1 Main St', \(pick(realtors)), \(maybe(pickUser()))) RETURNING id"))
    }

    private func newItem(table: String) throws {
        let claimer = maybe(pickUser())
        let id = try insert("""
            INSERT INTO \(unsafeSQL: table) (title, declared_by, claimed_by, claimed_at, listing_id)
            VALUES (\(word()), \(pickUser()), \(claimer), CASE WHEN \(claimer)::uuid IS NULL THEN NULL ELSE now() END, \(maybeListing()))
            RETURNING id
            """)
        items.append((table, id))
    }

    /// A note, subtask, claim event or status change on a random parent.
    private func childWrite() throws {
        let item = pickItem(), kind = item.table == "tasks" ? "task" : "activity"
        switch random.below(4) {
        case 0:
            let onListing = random.below(3) == 0
            try execute("INSERT INTO notes (content, created_by, parent_type, parent_id) VALUES (\(word()), \(pickUser()), \(onListing ? "listing" : kind), \(onListing ? pick(listings) : item.id))")
        case 1: try execute("INSERT INTO subtasks (title, parent_type, parent_id) VALUES (\(word()), \(kind), \(item.id))")
        case 2: try execute("INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id) VALUES (\(kind), \(item.id), \(pickUser()), 'claimed', \(admin))")
        default: try execute("INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by) VALUES (\(kind), \(item.id), 'open', \(pickUser()))")
        }
    }

    private func insert(_ sql: PostgresQuery) throws -> UUID {
        guard let row = try pool.query(sql).first else { throw TestSupportError("insert returned nothing") }
        return try row.decode("id")
    }

    private func pick<T>(_ values: [T]) -> T { values[random.below(values.count)] }
    private func pickItem() -> (table: String, id: UUID) { pick(items) }
    private func pickUser() -> UUID { random.below(8) == 0 ? admin : pick(realtors) }
    private func maybe(_ id: UUID) -> UUID? { random.below(3) == 0 ? nil : id }
    private func maybeListing() -> UUID? { random.below(4) == 0 ? nil : pick(listings) }
    private func word() -> String { "w\(random.below(1_000_000))" }
}

/// SplitMix64: the same scenario for the same seed, so a failure can be replayed.
struct SeededGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
