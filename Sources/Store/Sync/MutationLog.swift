import Foundation
import Postgres

/// The idempotency log of sync push (migrations 0007, 0012): the first result of each
/// (user, mutation_id), returned again for every replay.
///
/// Everything runs inside the caller's transaction, the same one that applies the mutation:
/// `claim` inserts the key, the mutation is applied, `record` stores its result, and COMMIT
/// makes all three visible at once. A crash at any instant leaves all or nothing, so there is
/// no half-done state to detect or take over.
public struct MutationLog: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// What `claim` found.
    public enum Claim: Sendable, Equatable {
        /// First time seen: apply the mutation in this transaction, then `record` its result.
        case claimed
        /// Already applied: this is the recorded result; send it again, apply nothing.
        case replay(result: String)
    }

    /// Takes the key for this transaction. If a concurrent transaction holds the same key (a
    /// second copy of the queue), PostgreSQL makes this INSERT wait on the unique index until
    /// that transaction ends (bounded by the caller's `lock_timeout`): after its COMMIT this
    /// reads its result, after its ROLLBACK this takes the key.
    public func claim(userID: UUID, mutationID: UUID, on connection: PostgresConnection) throws -> Claim {
        // Pruning can delete the conflicting row between the two statements; then try again.
        for _ in 0..<3 {
            let inserted = try connection.execute("""
                INSERT INTO sync_mutations (user_id, mutation_id) VALUES (\(userID), \(mutationID))
                ON CONFLICT DO NOTHING
                """)
            if inserted == 1 { return .claimed }
            let rows = try connection.query("""
                SELECT result FROM sync_mutations WHERE user_id = \(userID) AND mutation_id = \(mutationID)
                """)
            guard let row = rows.first else { continue }
            guard let result: String = try row.decode("result") else {
                // Only this transaction's own uncommitted insert lacks a result: the caller
                // claimed the same key twice in one transaction.
                throw PostgresError(kind: .misuse, message: "mutation claimed twice in one transaction")
            }
            return .replay(result: result)
        }
        throw PostgresError(kind: .server, code: .serializationFailure, message: "mutation log entry kept disappearing")
    }

    /// Stores the result of a mutation claimed in this transaction; it commits with the effect.
    public func record(userID: UUID, mutationID: UUID, result: String, on connection: PostgresConnection) throws {
        try connection.execute("""
            UPDATE sync_mutations SET result = \(result) WHERE user_id = \(userID) AND mutation_id = \(mutationID)
            """)
    }

    /// Deletes results older than `days`; returns how many. Replays older than that re-apply.
    @discardableResult
    public func prune(olderThanDays days: Int) throws -> Int {
        try pool.execute("DELETE FROM sync_mutations WHERE created_at < now() - \(days) * interval '1 day'")
    }
}
