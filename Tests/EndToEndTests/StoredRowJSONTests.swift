import Foundation
import Domain
import Postgres
@testable import Store
import Testing
import TestSupport

/// Tasks and activities keep their row JSON with the row (`0017_stored_row_json.sql`) and the
/// reads return it (`StoredRowJSON`): the stored text must always be what `dispatch_json` builds.
@Suite struct StoredRowJSONTests {
    static let everyStoredRowMatches = """
        SELECT (SELECT count(*) FROM tasks t WHERE t.row_json IS DISTINCT FROM dispatch_json(t)::text)
             + (SELECT count(*) FROM activities a WHERE a.row_json IS DISTINCT FROM dispatch_json(a)::text) AS stale
        """

    /// Inserts, updates and claims through the stores; after each the stored text equals a
    /// fresh `dispatch_json`, including the version and updated_at the `*_stamp` trigger sets
    /// (a row JSON trigger that fired before it would store the previous version).
    @Test func storedJSONFollowsEveryWrite() throws {
        let database = try TestDatabase.create()
        let user = try #require(try database.pool.query("""
            INSERT INTO users (name, email) VALUES ('Writer', 'writer@x.io') RETURNING id
            """).first).decode("id", as: UUID.self)
        let viewer = Viewer(userID: user, isAdmin: false)
        try database.pool.execute("""
            INSERT INTO tasks (title, declared_by, due_date) VALUES ('One "quoted"', \(user), '2027-01-01 05:29:59.9995+05:30')
            """)
        try database.pool.execute("INSERT INTO activities (title, declared_by) VALUES ('Visit', \(user))")
        try database.pool.execute("UPDATE tasks SET description = E'two\\nlines'")
        try database.pool.execute("UPDATE activities SET priority = 'high'")
        let task = try #require(try database.pool.query("SELECT id FROM tasks").first).decode("id", as: UUID.self)
        let store = WorkItemStore(pool: database.pool, kind: .task)
        _ = try store.claim(viewer, id: task)
        let stale: Int = try #require(try database.pool.query(PostgresQuery(sql: Self.everyStoredRowMatches)).first).decode("stale")
        #expect(stale == 0)
        let stored: String = try #require(try database.pool.query("SELECT row_json FROM tasks").first).decode("row_json")
        #expect(stored.contains("\"version\" : 3"), "\(stored)")
        #expect(try store.get(viewer, id: task).json == stored)
    }

    /// A create, claim and release answer with the row's stored text (`RETURNING` reads
    /// `row_json` rather than building it again), which must be the stamped row: each answer is what
    /// `dispatch_json` builds for the row right after, with the version that write gave it.
    @Test func writesAnswerTheRowTheyWrote() throws {
        let database = try TestDatabase.create()
        let user = try #require(try database.pool.query("""
            INSERT INTO users (name, email) VALUES ('Answered', 'answered@x.io') RETURNING id
            """).first).decode("id", as: UUID.self)
        let viewer = Viewer(userID: user, isAdmin: false)
        let store = WorkItemStore(pool: database.pool, kind: .task)
        var input = WorkItemInput(.tasks)
        input.set("title", .text("Answered \"quoted\""))
        let id = UUID()
        func fresh() throws -> String {
            try #require(try database.pool.query("SELECT dispatch_json(t)::text AS json FROM tasks t WHERE id = \(id)").first).decode("json")
        }
        let created = try store.create(viewer, id: id, input: input)
        #expect(created.created && created.row.version == 1)
        #expect(created.row.json == (try fresh()))
        let claimed = try store.claim(viewer, id: id)
        #expect(claimed.row.version == 2)
        #expect(claimed.row.json == (try fresh()))
        let released = try store.release(viewer, id: id)
        #expect(released.row.version == 3)
        #expect(released.row.json == (try fresh()))
    }

    /// The list and GET return the stored text (not a fresh build), and a row written with
    /// triggers off (no stored text) still reads as its `dispatch_json`.
    @Test func listAndGetReturnTheStoredText() throws {
        let database = try TestDatabase.create()
        let user = try #require(try database.pool.query("""
            INSERT INTO users (name, email) VALUES ('Reader', 'reader@x.io') RETURNING id
            """).first).decode("id", as: UUID.self)
        let viewer = Viewer(userID: user, isAdmin: false)
        let marked = UUID(), bare = UUID()
        try database.pool.execute("INSERT INTO tasks (id, title, declared_by) VALUES (\(marked), 'Marked', \(user))")
        try database.pool.withTransaction { connection in
            try connection.execute("SET LOCAL session_replication_role = replica")
            try connection.execute("UPDATE tasks SET row_json = '{\"stored\":true}' WHERE id = \(marked)")
            try connection.execute("INSERT INTO tasks (id, title, declared_by) VALUES (\(bare), 'Bare', \(user))")
        }
        let store = WorkItemStore(pool: database.pool, kind: .task)
        let built: String = try #require(try database.pool.query(
            "SELECT dispatch_json(t)::text AS json FROM tasks t WHERE id = \(bare)").first).decode("json")
        let page = try store.list(viewer, ListFilter())
        #expect(Set(page.rows) == ["{\"stored\":true}", built])
        #expect(try store.get(viewer, id: marked).json == "{\"stored\":true}")
        #expect(try store.get(viewer, id: bare).json == built)
    }

    /// 0017 on a database holding rows from 0001–0016: every row gets its text, and filling it
    /// moves no updated_at, version or txid (the backfill runs with the row triggers off). The
    /// upgrade runs every later migration too, so one that replaces `dispatch_json(tasks)` or
    /// `(activities)` without refilling `row_json` fails here.
    @Test func upgradeBackfillsWithoutTouchingTheRows() throws {
        let repository = try #require(TestDatabase.repositoryMigrationsDirectory)
        let older = try TestDatabase.repositoryMigrations(through: 16)
        defer { try? FileManager.default.removeItem(at: older) }
        let database = try TestDatabase.create(migrations: older)
        try database.pool.execute("""
            WITH u AS (INSERT INTO users (name, email) VALUES ('Up', 'up@x.io') RETURNING id)
            INSERT INTO tasks (title, declared_by) SELECT 'Task ' || n, id FROM u, generate_series(1, 20) n
            """)
        try database.pool.execute("INSERT INTO activities (title, declared_by) SELECT 'Visit', declared_by FROM tasks LIMIT 3")
        let stamps = """
            SELECT string_agg(concat_ws(' ', t.id, t.updated_at, t.version, t.txid), ',' ORDER BY t.id) AS s FROM
                (SELECT id, updated_at, version, txid FROM tasks UNION ALL SELECT id, updated_at, version, txid FROM activities) t
            """
        let before: String = try #require(try database.pool.query(PostgresQuery(sql: stamps)).first).decode("s")
        let applied = try Migrator(directory: repository).migrate(pool: database.pool)
        #expect(applied.first?.version == 17)
        let after: String = try #require(try database.pool.query(PostgresQuery(sql: stamps)).first).decode("s")
        #expect(after == before)
        let stale: Int = try #require(try database.pool.query(PostgresQuery(sql: Self.everyStoredRowMatches)).first).decode("stale")
        #expect(stale == 0)
        let missing: Int = try #require(try database.pool.query("SELECT count(*)::int AS n FROM tasks WHERE row_json IS NULL").first).decode("n")
        #expect(missing == 0)
    }
}
