import Postgres
import Testing
import TestSupport

/// The schema's own guarantees, checked against real PostgreSQL: server-managed columns cannot
/// be faked, enums accept exactly the contract's strings (docs/contract.md §1), and invariants hold without the service layer.
@Suite struct SchemaTests {
    @Test func updateOfSyncedRowBumpsVersionAndIgnoresClientTimestampsAndVersion() throws {
        let database = try TestDatabase.create()
        let rows = try database.pool.query("""
            INSERT INTO users (name, email, version, updated_at) VALUES ('A', 'a@x.io', 42, '2000-01-01Z')
            RETURNING id::text, version, (updated_at > '2001-01-01Z') AS fresh, txid::text
            """)
        let inserted = try #require(rows.first)
        #expect(try inserted.decode("version", as: Int.self) == 1)
        #expect(try inserted.decode("fresh", as: Bool.self))
        let id: String = try inserted.decode("id")
        let firstTxid = try Int(inserted.decode("txid", as: String.self)) ?? 0

        let updated = try #require(try database.pool.query("""
            UPDATE users SET name = 'B', version = 99, created_at = '2000-01-01Z', updated_at = '2000-01-01Z'
            WHERE id = \(id)::uuid
            RETURNING version, (updated_at > '2001-01-01Z') AS fresh, (created_at > '2001-01-01Z') AS kept, txid::text
            """).first)
        #expect(try updated.decode("version", as: Int.self) == 2)
        #expect(try updated.decode("fresh", as: Bool.self))
        #expect(try updated.decode("kept", as: Bool.self))
        #expect(try (Int(updated.decode("txid", as: String.self)) ?? 0) > firstTxid)
    }

    @Test(arguments: [
        "INSERT INTO users (name, email, user_type) VALUES ('A', 'a@x.io', 'owner')",
        "INSERT INTO users (name, email) VALUES ('A', 'no-at-sign')",
        "INSERT INTO users (name, email, avatar_hash) VALUES ('A', 'a@x.io', 'ABC')",
        "INSERT INTO tasks (title, declared_by, priority) SELECT 't', id, 'critical' FROM users",
        "INSERT INTO tasks (title, declared_by, status) SELECT 't', id, 'done' FROM users",
        "INSERT INTO tasks (title, declared_by, claimed_by) SELECT 't', id, id FROM users",
        "INSERT INTO activities (title, declared_by, type) SELECT 't', id, 'lunch' FROM users",
        "INSERT INTO activities (title, declared_by, duration_seconds) SELECT 't', id, -1 FROM users",
        "INSERT INTO listings (address, owned_by, status) SELECT 'x', id, 'sold' FROM users",
        "INSERT INTO listings (address, owned_by, price) SELECT 'x', id, -1 FROM users",
        "INSERT INTO notes (content, created_by, parent_type, parent_id) SELECT 'n', id, 'user', id FROM users",
        "INSERT INTO subtasks (title, parent_type, parent_id) SELECT 's', 'listing', id FROM users",
        "INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id) SELECT 'task', id, id, 'stolen', id FROM users",
        "INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by) SELECT 'listing', id, 'open', id FROM users",
    ])
    func invalidEnumOrBrokenInvariantIsRejectedByTheDatabase(statement: String) throws {
        let database = try TestDatabase.create()
        try database.pool.execute("INSERT INTO users (name, email) VALUES ('Seed', 'seed@x.io')")
        let error = #expect(throws: PostgresError.self) { try database.pool.execute(PostgresQuery(sql: statement)) }
        #expect(error?.code == .checkViolation)
    }

    @Test func everySpecEnumValueIsAccepted() throws {
        let database = try TestDatabase.create()
        try database.pool.execute("INSERT INTO users (name, email, user_type) VALUES ('A', 'a@x.io', 'admin'), ('R', 'r@x.io', 'realtor')")
        let statements = [
            "INSERT INTO listings (address, owned_by, listing_type, status, created_via) SELECT 'x', id, t, s, v FROM users, unnest(ARRAY['sale','rental']) t, unnest(ARRAY['draft','active','pending','closed','deleted']) s, unnest(ARRAY['dispatch','slack']) v",
            "INSERT INTO tasks (title, declared_by, priority, status) SELECT 't', id, p, s FROM users, unnest(ARRAY['low','medium','high','urgent']) p, unnest(ARRAY['open','in_progress','completed','deleted']) s",
            "INSERT INTO activities (title, declared_by, type) SELECT 'a', id, t FROM users, unnest(ARRAY['call','email','meeting','show_property','follow_up','other']) t",
            "INSERT INTO notes (content, created_by, parent_type, parent_id) SELECT 'n', id, p, id FROM users, unnest(ARRAY['task','activity','listing']) p",
            "INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id) SELECT e, id, id, a, id FROM users, unnest(ARRAY['task','activity']) e, unnest(ARRAY['claimed','released']) a",
            "INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by) SELECT 'task', id, 'open', 'in_progress', id FROM users",
        ]
        for statement in statements {
            #expect(try database.pool.execute(PostgresQuery(sql: statement)) > 0)
        }
    }
}
