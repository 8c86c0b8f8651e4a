import Foundation
import Postgres

/// The idempotency log of sync push (migration 0007): the first result of each
/// (user, mutation_id), returned again for every replay.
public struct MutationLog: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// What happened when a mutation id was reserved.
    public enum Reservation: Sendable, Equatable {
        /// First time seen (or a stale pending entry taken over): apply it, then `complete`.
        case reserved
        /// Already applied: this is the recorded result, send it again.
        case replay(result: String)
        /// Another request is applying it right now.
        case inProgress
    }

    /// A pending entry older than this belongs to a request that died between applying and
    /// recording (process killed). Taking it over re-applies the mutation, which is safe for
    /// every op: an upsert with base_version then conflicts with its own earlier write instead
    /// of overwriting, and claim/release/delete are idempotent.
    public static let stalePendingSeconds = 60

    public func reserve(userID: UUID, mutationID: UUID) throws -> Reservation {
        let inserted = try pool.execute("""
            INSERT INTO sync_mutations (user_id, mutation_id) VALUES (\(userID), \(mutationID))
            ON CONFLICT DO NOTHING
            """)
        if inserted == 1 { return .reserved }
        let rows = try pool.query("""
            SELECT state, result, created_at < now() - \(Self.stalePendingSeconds) * interval '1 second' AS stale
            FROM sync_mutations WHERE user_id = \(userID) AND mutation_id = \(mutationID)
            """)
        guard let row = rows.first else {
            // Deleted by pruning between the two statements: treat as new.
            return try reserve(userID: userID, mutationID: mutationID)
        }
        let result: String? = try row.decode("result")
        if let result { return .replay(result: result) }
        guard try row.decode("stale", as: Bool.self) else { return .inProgress }
        let taken = try pool.execute("""
            UPDATE sync_mutations SET created_at = now()
            WHERE user_id = \(userID) AND mutation_id = \(mutationID) AND state = 'pending'
              AND created_at < now() - \(Self.stalePendingSeconds) * interval '1 second'
            """)
        return taken == 1 ? .reserved : try reserve(userID: userID, mutationID: mutationID)
    }

    public func complete(userID: UUID, mutationID: UUID, result: String) throws {
        try pool.execute("""
            UPDATE sync_mutations SET state = 'done', result = \(result)
            WHERE user_id = \(userID) AND mutation_id = \(mutationID)
            """)
    }

    /// Forgets a reservation whose mutation could not be attempted (e.g. the database went
    /// away), so a retry applies it instead of waiting for it to go stale.
    public func release(userID: UUID, mutationID: UUID) throws {
        try pool.execute("""
            DELETE FROM sync_mutations WHERE user_id = \(userID) AND mutation_id = \(mutationID) AND state = 'pending'
            """)
    }

    /// Deletes results older than `days`; returns how many. Replays older than that re-apply.
    @discardableResult
    public func prune(olderThanDays days: Int) throws -> Int {
        try pool.execute("DELETE FROM sync_mutations WHERE created_at < now() - \(days) * interval '1 day'")
    }
}
