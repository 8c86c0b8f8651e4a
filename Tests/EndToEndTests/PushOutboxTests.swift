import Foundation
import Postgres
import Store
import Testing
import TestSupport

/// The outbox's claim bookkeeping on a real database: a claim never finished reads as an
/// interrupted send at the next claim; a push handed back untouched does not.
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
                                            platforms: ["ios"])
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
}
