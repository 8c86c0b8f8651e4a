import Foundation
import Postgres

/// The backups and verifies the server ran (migration 0038): written by the backup service
/// as each starts and ends, read by the console's Backups page.
public struct BackupRunStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Run: Sendable, Equatable {
        public var id: UUID
        public var kind: String
        public var file: String
        public var source: String
        public var requestedByEmail: String?
        public var instance: String
        public var startedAt: Date
        public var finishedAt: Date?
        public var state: String
        public var fileBytes: Int64?
        public var databaseBytes: Int64?
        public var rowCount: Int64?
        public var detail: String?
    }

    /// A backup with its latest verify (nil: never verified).
    public struct Listed: Sendable, Equatable {
        public var backup: Run
        public var verify: Run?
    }

    public func start(kind: String, file: String, source: String, requestedBy: UUID?, email: String?,
                      instance: String) throws -> UUID {
        let rows = try pool.query("""
            INSERT INTO backup_runs (kind, file, source, requested_by, requested_by_email, instance)
            VALUES (\(kind), \(file), \(source), \(requestedBy), \(email), \(instance)) RETURNING id
            """)
        guard let id: UUID = try rows.first?.decode("id") else { throw PostgresError(kind: .protocolViolation, message: "INSERT … RETURNING id answered no row") }
        return id
    }

    /// Ends a run; a finished backup also records the database's size at that moment.
    public func finish(_ id: UUID, succeeded: Bool, fileBytes: Int64?, rowCount: Int64?, detail: String?) throws {
        _ = try pool.execute("""
            UPDATE backup_runs SET state = \(succeeded ? "succeeded" : "failed"), finished_at = now(),
                   file_bytes = \(fileBytes), row_count = \(rowCount), detail = left(\(detail), 8000),
                   database_bytes = CASE WHEN kind = 'backup' THEN pg_database_size(current_database()) END
            WHERE id = \(id) AND state = 'running'
            """)
    }

    /// Runs this instance left running when it stopped: they will never finish.
    public func abandon(instance: String) throws {
        _ = try pool.execute("""
            UPDATE backup_runs SET state = 'failed', finished_at = now(), detail = 'interrupted: the server stopped while it ran'
            WHERE instance = \(instance) AND state = 'running'
            """)
    }

    /// After a restore: the restored backup's own run was recorded before its snapshot, so it
    /// reads "running" in the copy; it ended well, or there would be nothing to restore.
    public static func markRestored(file: String, on connection: PostgresConnection) throws {
        try connection.execute("""
            UPDATE backup_runs SET state = 'succeeded', finished_at = now(), detail = 'this backup was restored into this database'
            WHERE kind = 'backup' AND file = \(file) AND state = 'running'
            """)
    }

    public func find(_ id: UUID) throws -> Run? {
        try pool.query("SELECT \(unsafeSQL: Self.columns) FROM backup_runs WHERE id = \(id)").first.map(Self.run)
    }

    /// The newest backups, each with its latest verify.
    public func recent(limit: Int = 30) throws -> [Listed] {
        let backups = try pool.query("""
            SELECT \(unsafeSQL: Self.columns) FROM backup_runs WHERE kind = 'backup' ORDER BY started_at DESC LIMIT \(limit)
            """).map(Self.run)
        let files = backups.map(\.file)
        guard !files.isEmpty else { return [] }
        let verifies = try pool.query("""
            SELECT DISTINCT ON (file) \(unsafeSQL: Self.columns) FROM backup_runs
            WHERE kind = 'verify' AND file = ANY(\(files)) ORDER BY file, started_at DESC
            """).map(Self.run)
        let byFile = Dictionary(verifies.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        return backups.map { Listed(backup: $0, verify: byFile[$0.file]) }
    }

    /// Whether a backup or verify is running anywhere (the page refreshes while one is).
    public func running() throws -> Bool {
        try pool.query("SELECT EXISTS (SELECT 1 FROM backup_runs WHERE state = 'running') AS busy").first?.decode("busy") ?? false
    }

    private static let columns = """
        id, kind, file, source, requested_by_email, instance, started_at, finished_at, state, file_bytes, database_bytes, row_count, detail
        """

    private static func run(_ row: PostgresRow) throws -> Run {
        Run(id: try row.decode("id"), kind: try row.decode("kind"), file: try row.decode("file"), source: try row.decode("source"),
            requestedByEmail: try row.decode("requested_by_email"), instance: try row.decode("instance"),
            startedAt: try row.decode("started_at"), finishedAt: try row.decode("finished_at"), state: try row.decode("state"),
            fileBytes: try row.decode("file_bytes"), databaseBytes: try row.decode("database_bytes"),
            rowCount: try row.decode("row_count"), detail: try row.decode("detail"))
    }
}
