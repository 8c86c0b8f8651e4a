import EmbeddedPostgres
import Foundation
import Postgres

/// A private PostgreSQL cluster for one test: a restore target, or a source whose transaction
/// counter starts where the test needs it (`pg_resetwal -x`). Stopped and removed at deinit.
final class ScratchCluster: @unchecked Sendable {
    let server: EmbeddedPostgres
    private let directory: String

    init(nextTransactionID: UInt64? = nil) throws {
        directory = "/tmp/dispatch-scratch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        server = try EmbeddedPostgres(configuration: .init(dataDirectory: directory + "/data", fsync: false,
                                                           settings: ["max_connections": "50", "shared_buffers": "16MB"]))
        if let nextTransactionID {
            try server.initialize()
            try server.setNextTransactionID(nextTransactionID)
        }
        try server.start()
    }

    /// Restarts the cluster with its transaction counter moved to `xid` (forward only).
    func moveCounter(to xid: UInt64) throws {
        try server.stop()
        try server.setNextTransactionID(xid)
        try server.start()
    }

    deinit {
        try? server.stop()
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: server.socketDirectory)
    }

    /// A new, empty database and its URL (DATABASE_URL form).
    func createDatabase(_ name: String) throws -> String {
        try server.createDatabase(name)
        return server.url(database: name)
    }

    func connect(_ database: String) throws -> PostgresConnection {
        try PostgresConnection(server.conninfo(database: database))
    }
}
