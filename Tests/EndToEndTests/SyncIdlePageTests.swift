import Foundation
import Postgres
@testable import Store
import Testing

/// The one-statement answer to a delta with nothing new (SyncFeed.idlePage) must hand out a
/// cursor from which nothing is missed: neither a later write nor one whose transaction was
/// running while the check ran.
@Suite struct SyncIdlePageTests {
    @Test func idleDeltaAnsweredByTheFastPathMissesNeitherLaterWritesNorOnesRunningDuringTheCheck() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let running = try server.task(by: rita), later = try server.task(by: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)

        // A transaction writes (so it holds an xid) and stays open across the idle sync.
        let writer = try server.database.connect()
        defer { writer.close() }
        try writer.execute("BEGIN")
        try writer.execute("UPDATE tasks SET title = 'running' WHERE id = \(running)")

        // The cursor the replica holds is answered by the fast path...
        let text = try #require(replica.since)
        let cursor = try #require(SyncCursor(decoding: text))
        let since = try #require(cursor.since)
        let feed = server.instances[0].sync.feed
        let viewer = Viewer(userID: rita.id, isAdmin: false)
        let idle = try feed.pool.withConnection { try feed.idlePage(viewer: viewer, cursor: cursor, since: since, on: $0) }
        let fast = try #require(idle)
        #expect(fast.isEmpty && !fast.hasMore && fast.next.position == nil)
        // ...whose cursor does not claim the running transaction was seen.
        let runningXID = try writer.query("SELECT pg_current_xact_id()::text AS x")[0].decode("x", as: String.self)
        let xid = try #require(UInt64(runningXID))
        let next = try #require(fast.next.since)
        #expect(xid >= next.xmin && (xid >= next.xmax || next.running.contains(xid)))

        // The client's own idle sync, over HTTP, is empty too.
        let before = replica.state
        let json = try replica.apply(try server.sync(rita, since: replica.since))
        #expect(json["has_more"] as? Bool == false)
        #expect(replica.state == before)

        try writer.execute("COMMIT")
        try server.execute("UPDATE tasks SET title = 'later' WHERE id = \(later)")
        try replica.syncToEnd(server, as: rita)
        #expect(replica.rows["tasks"]?[running.lowercased]?["title"] as? String == "running")
        #expect(replica.rows["tasks"]?[later.lowercased]?["title"] as? String == "later")
        #expect(replica.state == (try server.expectedState(for: rita)))

        // Once caught up, the fast path answers again.
        let caughtUp = try #require(SyncCursor(decoding: replica.since ?? ""))
        let caughtUpSince = try #require(caughtUp.since)
        let again = try feed.pool.withConnection {
            try feed.idlePage(viewer: viewer, cursor: caughtUp, since: caughtUpSince, on: $0)
        }
        #expect(again != nil)
    }
}
