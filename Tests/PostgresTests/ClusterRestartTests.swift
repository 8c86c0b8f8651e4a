import EmbeddedPostgres
import Foundation
import Postgres
import Testing

/// A dedicated embedded cluster that the test stops and starts again.
@Suite struct ClusterRestartTests {
    @Test func poolAndListenerFailFastWhileDownAndRecoverAfterRestart() throws {
        let dataDirectory = "/tmp/dispatch-restart-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let server = try EmbeddedPostgres(configuration: .init(dataDirectory: dataDirectory, port: 5433, fsync: false))
        defer {
            try? server.stop()
            try? FileManager.default.removeItem(atPath: dataDirectory)
            try? FileManager.default.removeItem(atPath: server.socketDirectory)
        }
        try server.start()
        #expect(server.isRunning)
        try server.createDatabase("restart_db")

        let pool = PostgresPool(configuration: .init(
            conninfo: server.conninfo(database: "restart_db"), size: 2, acquisitionTimeout: .seconds(3)))
        defer { pool.close() }
        #expect(try pool.query("SELECT 1 AS one").first?.decode("one", as: Int.self) == 1)
        let inbox = Inbox()
        let listener = try PostgresListener(
            configuration: .init(conninfo: server.conninfo(database: "restart_db")),
            channels: ["events"],
            onReconnect: { inbox.reconnected() },
            onNotification: { channel, payload in inbox.add(channel, payload) })
        listener.start()
        defer { listener.stop() }
        #expect(listener.waitUntilListening(timeout: .seconds(10)))

        try server.stop()
        #expect(!server.isRunning)
        let started = ContinuousClock.now
        let error = try #require(throws: PostgresError.self) { try pool.query("SELECT 1") }
        #expect(error.kind == .connection)
        #expect(ContinuousClock.now - started < .seconds(5))

        try server.start()
        #expect(try pool.query("SELECT 2 AS two").first?.decode("two", as: Int.self) == 2)
        #expect(pool.stats.inUse == 0)
        #expect(inbox.waitForReconnect(timeout: 20))
        #expect(listener.waitUntilListening(timeout: .seconds(10)))
        try pool.notify(channel: "events", payload: "back")
        #expect(inbox.waitForCount(1, timeout: 10))
        #expect(inbox.messages.first == ["events", "back"])
        listener.stop()
        try server.dropDatabase("restart_db")
    }

    @Test func startInNewNestedDirectoryIsIdempotentAndReachableByConninfoAndURL() throws {
        let root = "/tmp/dispatch-idem-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let dataDirectory = root + "/nested/data"
        let server = try EmbeddedPostgres(configuration: .init(dataDirectory: dataDirectory, port: 5434, fsync: false))
        defer {
            try? server.stop()
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: server.socketDirectory)
        }
        try server.start()
        try server.start()
        try server.stop()
        try server.start()
        for target in [server.conninfo, server.url()] {
            let connection = try PostgresConnection(target)
            #expect(try connection.query("SELECT current_user AS u").first?.decode("u", as: String.self) == "postgres")
        }
    }

    @Test func unsafeDatabaseNameIsRejected() throws {
        let server = try EmbeddedPostgres(configuration: .init(dataDirectory: "/tmp/dispatch-unused-\(getpid())"))
        let error = try #require(throws: EmbeddedPostgresError.self) { try server.createDatabase("x\"; DROP") }
        #expect(error.kind == .invalidArgument)
    }

    @Test func missingBinariesAreReportedWithInstallHint() throws {
        let error = try #require(throws: EmbeddedPostgresError.self) {
            try EmbeddedPostgres(configuration: .init(dataDirectory: "/tmp/dispatch-unused", binDirectory: "/nonexistent/bin"))
        }
        #expect(error.kind == .binariesNotFound)
        #expect(error.message.contains("apt-get install -y postgresql"))
    }

    @Test func socketPathTooLongIsRejected() throws {
        let longDirectory = "/tmp/" + String(repeating: "s", count: 110)
        let error = try #require(throws: EmbeddedPostgresError.self) {
            try EmbeddedPostgres(configuration: .init(dataDirectory: "/tmp/dispatch-unused", socketDirectory: longDirectory))
        }
        #expect(error.kind == .invalidArgument)
    }
}
