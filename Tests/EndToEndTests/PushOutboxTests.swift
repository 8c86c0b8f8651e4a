import Foundation
import Postgres
import Store
import Testing
import TestSupport

/// The outbox's claim bookkeeping on a real database: a claim never finished reads as an
/// interrupted send at the next claim; a push handed back untouched does not; a change another
/// instance's push already covered queues nothing.
@Suite struct PushOutboxTests {
    @Test func anUnfinishedClaimIsInterruptedButAReleasedOneIsNot() throws {
        let database = try TestDatabase.create(poolSize: 2)
        let user: UUID = try #require(try database.pool.query("""
            INSERT INTO users (name, email, user_type) VALUES ('Rita', 'rita@example.com', 'realtor') RETURNING id
            """).first?.decode("id"))
        let device: UUID = try #require(try database.pool.query("""
            INSERT INTO push_devices (user_id, platform, token, app_id) VALUES (\(user), 'ios', 'abcdef0123456789', 'app') RETURNING id
            """).first?.decode("id"))
        try database.pool.execute("INSERT INTO push_outbox (device_id, reason) VALUES (\(device), 'changed')")
        let queue = PushOutboxQueue(pool: database.pool)
        // Handed back untouched (a stopping sender): the next claim sends it normally.
        let first = try #require(try queue.claim(limit: 10, lease: .seconds(60)).first)
        #expect(!first.interrupted && first.attempts == 1)
        #expect(try queue.finish(first, .released, minInterval: .seconds(3600)))
        let second = try #require(try queue.claim(limit: 10, lease: .seconds(60)).first)
        #expect(!second.interrupted && second.attempts == 1)
        // Never finished (a killed sender): once its lease ends, the next claim knows.
        try database.pool.execute("UPDATE push_outbox SET next_attempt_at = now()")
        let third = try #require(try queue.claim(limit: 10, lease: .seconds(60)).first)
        #expect(third.interrupted && third.attempts == 2)
        // The lost claim can record nothing.
        #expect(try !queue.finish(second, .sent(status: 200), minInterval: .seconds(3600)))
    }

    /// A change for a device whose wake-up is already pending, unclaimed and at least as
    /// urgent is counted as coalesced without rewriting the row (a new row version per device
    /// per change read was most of what the outbox cost a change); an urgent change still
    /// moves it, and one arriving during a send still re-arms it.
    @Test func aPendingWakeUpIsLeftUntouchedUnlessTheChangeMovesIt() throws {
        let database = try TestDatabase.create(poolSize: 2)
        let user: UUID = try #require(try database.pool.query("""
            INSERT INTO users (name, email, user_type) VALUES ('Rita', 'rita@example.com', 'realtor') RETURNING id
            """).first?.decode("id"))
        try database.pool.execute("""
            INSERT INTO push_devices (user_id, platform, token, app_id) VALUES (\(user), 'ios', 'abcdef0123456789', 'app')
            """)
        let queue = PushOutboxQueue(pool: database.pool)
        /// [queued, coalesced] of one change read.
        func enqueue(urgent: Bool) throws -> [Int] {
            let wake = PushOutboxQueue.Wake(users: [user], everyone: false, urgent: urgent ? [user] : [], actors: [], liveSessions: [],
                                            platforms: ["ios"], snapshot: try snapshot(database))
            let counted = try queue.enqueue(wake, minInterval: .seconds(3600))
            return [counted.queued, counted.coalesced]
        }
        func row() throws -> String? {
            try database.pool.query("SELECT xmin::text || ' ' || reason || ' ' || coalesced || ' ' || again AS r FROM push_outbox")
                .first?.decode("r")
        }
        #expect(try enqueue(urgent: false) == [1, 0])
        let queued = try #require(try row())
        for _ in 0..<3 { #expect(try enqueue(urgent: false) == [0, 1]) }
        #expect(try row() == queued, "a change that moves nothing leaves the pending row as it was")
        #expect(try enqueue(urgent: true) == [0, 1])
        let urgent = try #require(try row())
        #expect(urgent != queued && urgent.hasSuffix(" urgent 1 false"))
        #expect(try enqueue(urgent: true) == [0, 1])
        #expect(try row() == urgent)
        // Being sent: the change re-arms it for after the send, once.
        try database.pool.execute("UPDATE push_outbox SET claim = gen_random_uuid()")
        #expect(try enqueue(urgent: false) == [0, 1])
        #expect(try row()?.hasSuffix(" urgent 2 true") == true)
    }

    @Test func aChangeAPushAlreadyCoveredIsNotQueuedAgainButALaterOneIs() throws {
        let database = try TestDatabase.create(poolSize: 2)
        let user: UUID = try #require(try database.pool.query("""
            INSERT INTO users (name, email, user_type) VALUES ('Rita', 'rita@example.com', 'realtor') RETURNING id
            """).first?.decode("id"))
        try database.pool.execute("INSERT INTO push_devices (user_id, platform, token, app_id) VALUES (\(user), 'ios', 'abcdef0123456789', 'app')")
        let queue = PushOutboxQueue(pool: database.pool)
        func wake(_ snapshot: String) -> PushOutboxQueue.Wake {
            PushOutboxQueue.Wake(users: [user], everyone: false, urgent: [user], actors: [], liveSessions: [], platforms: ["ios"],
                                 snapshot: snapshot)
        }
        // Another writer's transaction stays open throughout: it is running in every snapshot
        // below, which must not make a covered change look uncovered.
        try database.pool.withConnection { other in
            try other.execute("BEGIN")
            try other.execute("SELECT pg_current_xact_id()")
            defer { _ = try? other.execute("ROLLBACK") }
            // A change committed (its snapshot read by instance 1 and, later, by instance 2) ...
            try database.pool.execute("UPDATE users SET name = 'Rita B' WHERE id = \(user)")
            let seen = try snapshot(database)
            // ... instance 1 queues and sends its wake-up ...
            #expect(try queue.enqueue(wake(seen), minInterval: .seconds(3600)).queued == 1)
            let claimed = try queue.claim(limit: 10, lease: .seconds(60))
            #expect(try queue.finishSent(claimed, status: 200, minInterval: .seconds(3600)) == 1)
            // ... so instance 2, reading the same change later, owes the phone nothing.
            #expect(try queue.enqueue(wake(seen), minInterval: .seconds(3600)) == (0, 0))
            // A change committed after that push's claim still wakes it.
            try database.pool.execute("UPDATE users SET name = 'Rita C' WHERE id = \(user)")
            let later = try snapshot(database)
            #expect(try queue.enqueue(wake(later), minInterval: .seconds(3600)).queued == 1)
        }
    }

    /// The snapshot a change stream's read now would take.
    private func snapshot(_ database: TestDatabase) throws -> String {
        try #require(try database.pool.query("SELECT pg_current_snapshot()::text AS s").first?.decode("s", as: String.self))
    }

    /// Who a change wakes at once: an urgent item's listing owner and assigned staff (whoever
    /// wrote it), the user a claim was made for and the claimed item's declarer, but not the
    /// claim's actor, who is only named as such; nothing committed before the change.
    @Test func aChangesReasonsNameTheUrgentListingsPeopleAndTheClaimsOthers() throws {
        let database = try TestDatabase.create(poolSize: 2)
        let pool = database.pool
        func user(_ name: String) throws -> UUID {
            try #require(try pool.query("""
                INSERT INTO users (name, email, user_type) VALUES (\(name), \(name + "@example.com"), 'realtor') RETURNING id
                """).first?.decode("id"))
        }
        let owner = try user("owner"), staff = try user("staff"), writer = try user("writer"), declarer = try user("declarer")
        let other = try user("other")
        func id(_ sql: PostgresQuery) throws -> UUID { try #require(try pool.query(sql).first?.decode("id")) }
        let listing = try id("INSERT INTO listings (address, owned_by, assigned_staff) VALUES ('1 Main St', \(owner), \(staff)) RETURNING id")
        let quiet = try id("INSERT INTO listings (address, owned_by) VALUES ('2 Side St', \(other)) RETURNING id")
        func snapshot() throws -> SyncSnapshot {
            let text: String = try #require(try pool.query("SELECT pg_current_snapshot()::text AS s").first?.decode("s"))
            return try #require(SyncSnapshot(text: text))
        }
        try pool.execute("INSERT INTO tasks (title, priority, listing_id, declared_by) VALUES ('before', 'urgent', \(quiet), \(writer))")
        let since = try snapshot()
        try pool.execute("INSERT INTO tasks (title, priority, listing_id, declared_by) VALUES ('fire', 'urgent', \(listing), \(writer))")
        try pool.execute("INSERT INTO activities (title, priority, listing_id, declared_by) VALUES ('calm', 'high', \(quiet), \(writer))")
        let claimed = try id("INSERT INTO tasks (title, listing_id, declared_by) VALUES ('claimed', \(quiet), \(declarer)) RETURNING id")
        try pool.execute("""
            INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id) VALUES ('task', \(claimed), \(other), 'claimed', \(writer))
            """)
        let queue = PushOutboxQueue(pool: pool)
        let reasons = try queue.reasons(since: since, upto: try snapshot())
        #expect(reasons.urgent == [owner, staff, declarer, other])
        #expect(reasons.actors == [writer])
        let none = try queue.reasons(since: try snapshot(), upto: try snapshot())
        #expect(none.urgent.isEmpty && none.actors.isEmpty)
    }
}
