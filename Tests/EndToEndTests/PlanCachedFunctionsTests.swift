import Foundation
import Postgres
import Testing
import TestSupport

/// Migration 0013 redefines dispatch_ts, dispatch_stamp_history_row and dispatch_record_access
/// so PostgreSQL plans them once (docs/explanations/decisions.md "Performance"); these pin down that what they
/// produce did not change, against real PostgreSQL.
@Suite struct PlanCachedFunctionsTests {
    /// RFC 3339 UTC with exactly milliseconds, truncated (never rounded), whatever the session's
    /// time zone and date style.
    @Test(arguments: ["UTC", "Pacific/Chatham", "America/St_Johns", "Asia/Kathmandu", "Etc/GMT-14"])
    func timestampTextIsTheSameInEverySessionTimeZone(_ zone: String) throws {
        let database = try TestDatabase.create()
        let cases = [
            ("2026-12-31 23:59:59.999999+00", "2026-12-31T23:59:59.999Z"),  // not rounded into 2027
            ("2027-01-01 05:29:59.9995+05:30", "2026-12-31T23:59:59.999Z"),
            ("1999-12-31 19:00:00-05", "2000-01-01T00:00:00.000Z"),
            ("2024-02-29 12:00:00.123456Z", "2024-02-29T12:00:00.123Z"),
            ("2024-03-31 01:59:59.000999Z", "2024-03-31T01:59:59.000Z"),  // a DST change in Europe
            ("2026-11-01 06:00:00.5Z", "2026-11-01T06:00:00.500Z"),  // a DST change in America
            ("9999-12-31 23:59:59.999999Z", "9999-12-31T23:59:59.999Z"),
        ]
        try database.pool.withTransaction { connection in
            try connection.execute(PostgresQuery(sql: "SET LOCAL TimeZone = '\(zone)'"))
            try connection.execute("SET LOCAL DateStyle = 'SQL, DMY'")
            for (input, expected) in cases {
                let row = try #require(try connection.query("SELECT dispatch_ts(\(input)::timestamptz) AS text").first)
                #expect(try row.decode("text", as: String.self) == expected, "\(input) in \(zone)")
            }
            let null = try #require(try connection.query("SELECT dispatch_ts(NULL) IS NULL AS absent").first)
            #expect(try null.decode("absent", as: Bool.self))
        }
    }

    /// A new history row is stamped one microsecond past its own entity's latest row in its own
    /// table (0010), now with one static query per table: a later stamp of the same entity in
    /// the other table, or of another entity or entity type, must not move it.
    @Test(arguments: ["claim_events", "status_changes"])
    func historyRowIsStampedPastItsOwnEntitysLatestRowOnly(_ table: String) throws {
        let database = try TestDatabase.create()
        let user: String = try #require(try database.pool.query(
            "INSERT INTO users (name, email) VALUES ('H', 'h@x.io') RETURNING id::text").first).decode("id")
        let entity = UUID(), otherEntity = UUID()
        let future = "2100-01-01 00:00:00.123456Z"
        func insert(into target: String, type: String, entity: UUID, createdAt: String? = nil) throws -> (bumped: Bool, clocked: Bool) {
            let stamp = createdAt ?? "2000-01-01Z"  // ignored by the trigger when it runs
            let sql: PostgresQuery = target == "claim_events"
                ? "INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id, created_at) VALUES (\(type), \(entity), \(user)::uuid, 'claimed', \(user)::uuid, \(stamp)::timestamptz) RETURNING created_at = \(future)::timestamptz + interval '1 microsecond' AS bumped, created_at < \(future)::timestamptz AS clocked"
                : "INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by, created_at) VALUES (\(type), \(entity), 'in_progress', \(user)::uuid, \(stamp)::timestamptz) RETURNING created_at = \(future)::timestamptz + interval '1 microsecond' AS bumped, created_at < \(future)::timestamptz AS clocked"
            let row = try #require(try database.pool.query(sql).first)
            return (try row.decode("bumped", as: Bool.self), try row.decode("clocked", as: Bool.self))
        }
        try database.pool.execute(PostgresQuery(sql: "ALTER TABLE \(table) DISABLE TRIGGER \(table)_stamp"))
        _ = try insert(into: table, type: "task", entity: entity, createdAt: future)
        try database.pool.execute(PostgresQuery(sql: "ALTER TABLE \(table) ENABLE TRIGGER \(table)_stamp"))

        let other = table == "claim_events" ? "status_changes" : "claim_events"
        #expect(try insert(into: other, type: "task", entity: entity).clocked)
        #expect(try insert(into: table, type: "activity", entity: entity).clocked)
        #expect(try insert(into: table, type: "task", entity: otherEntity).clocked)
        #expect(try insert(into: table, type: "task", entity: entity).bumped)
    }

    /// One record per distinct non-null person, with the given kind, entity and direction.
    @Test func accessRecordsAreOnePerDistinctPerson() throws {
        let database = try TestDatabase.create()
        let first = UUID(), second = UUID(), entity = UUID(), untouched = UUID()
        try database.pool.execute("""
            SELECT dispatch_record_access(ARRAY[\(first)::uuid, NULL, \(second)::uuid, \(first)::uuid], 'task', \(entity)::uuid, false)
            """)
        try database.pool.execute("SELECT dispatch_record_access(NULL, 'listing', \(untouched)::uuid, true)")
        try database.pool.execute("SELECT dispatch_record_access('{}', 'listing', \(untouched)::uuid, true)")
        let rows = try database.pool.query("""
            SELECT user_id::text AS user_id, entity_type, entity_id::text AS entity_id, granted
            FROM sync_access_changes ORDER BY user_id
            """)
        #expect(rows.count == 2)
        let users = try rows.map { try $0.decode("user_id", as: String.self) }
        #expect(Set(users) == [first.uuidString.lowercased(), second.uuidString.lowercased()])
        for row in rows {
            #expect(try row.decode("entity_type", as: String.self) == "task")
            #expect(try row.decode("entity_id", as: String.self) == entity.uuidString.lowercased())
            #expect(try !row.decode("granted", as: Bool.self))
        }
    }

    /// New access records get time-ordered keys (UUIDv7 layout), so inserts append to the
    /// primary-key index instead of touching random pages: version 7, the current Unix
    /// milliseconds in the first 48 bits, and a later record sorts after an earlier one.
    @Test func accessRecordKeysAreTimeOrdered() throws {
        let database = try TestDatabase.create()
        let person = UUID()
        for entity in [UUID(), UUID()] {
            try database.pool.execute("SELECT dispatch_record_access(ARRAY[\(person)::uuid], 'task', \(entity)::uuid, true)")
            try database.pool.execute("SELECT pg_sleep(0.003)")  // the next key is in a later millisecond
        }
        let rows = try database.pool.query("""
            SELECT substr(id::text, 15, 1) AS version,
                   abs(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint
                       - (extract(epoch FROM clock_timestamp()) * 1000)::bigint) < 60000 AS current
            FROM sync_access_changes ORDER BY created_at
            """)
        #expect(rows.count == 2)
        for row in rows {
            #expect(try row.decode("version", as: String.self) == "7")
            #expect(try row.decode("current", as: Bool.self))
        }
        let ordered = try #require(try database.pool.query("""
            SELECT array_agg(id ORDER BY id) = array_agg(id ORDER BY created_at, txid) AS ordered FROM sync_access_changes
            """).first)
        #expect(try ordered.decode("ordered", as: Bool.self))
    }
}
