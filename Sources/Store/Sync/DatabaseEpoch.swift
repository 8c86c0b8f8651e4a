import Foundation
import Postgres
import Synchronization

/// The database's sync epoch (migrations/0023): which incarnation of the data a sync cursor was
/// issued in. Restoring a backup starts a new epoch, and cursors of any other epoch answer 410
/// resync_required: their transaction ids belong to another cluster or another past.
///
/// Read once and kept: the epoch only changes while no server runs (`dispatchd restore` refuses
/// a database others are connected to; `adoptCluster` runs at start, before serving).
public final class DatabaseEpoch: Sendable {
    public struct Identity: Sendable, Equatable {
        public var epoch: String
        /// How many times the epoch changed; 0 means the data never moved.
        public var generation: Int
    }

    private let pool: PostgresPool
    private let cached = Mutex<Identity?>(nil)

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func current() throws -> Identity {
        if let known = cached.withLock({ $0 }) { return known }
        let identity = try Self.read(pool.query("SELECT epoch, generation FROM dispatch_identity"))
        cached.withLock { $0 = identity }
        return identity
    }

    /// Whether a cursor carrying `epoch` (nil: written before cursors carried one) belongs to
    /// this database's data.
    public func accepts(_ epoch: String?) throws -> Bool {
        let identity = try current()
        guard let epoch else { return identity.generation == 0 }
        return epoch == identity.epoch
    }

    /// Starts a new epoch when the database now lives in another cluster than the one that
    /// recorded the current epoch (restored by hand with pg_restore, or pg_upgrade): its
    /// transaction ids were not issued here. Returns the new epoch, nil when nothing changed
    /// (or the provider hides the cluster's identifier). Concurrent callers serialize on the row.
    public static func adoptCluster(pool: PostgresPool) throws -> String? {
        try pool.withTransaction { connection in
            let row = try connection.query("""
                SELECT cluster_id, dispatch_cluster_id() AS current FROM dispatch_identity FOR UPDATE
                """).first
            guard let current: String = try row?.decode("current") else { return nil }
            let recorded: String? = try row?.decode("cluster_id")
            guard recorded != current else { return nil }
            return try renew(on: connection)
        }
    }

    /// `dispatch_new_epoch()` in the caller's transaction: a new epoch, the data re-stamped as
    /// written by this transaction. Returns the new epoch.
    public static func renew(on connection: PostgresConnection) throws -> String {
        guard let epoch: String = try connection.query("SELECT dispatch_new_epoch() AS epoch").first?.decode("epoch") else {
            throw PostgresError(kind: .protocolViolation, message: "dispatch_new_epoch() returned no epoch")
        }
        return epoch
    }

    private static func read(_ rows: PostgresRows) throws -> Identity {
        guard let row = rows.first else {
            throw PostgresError(kind: .protocolViolation, message: "dispatch_identity has no row")
        }
        return Identity(epoch: try row.decode("epoch"), generation: try row.decode("generation"))
    }
}
