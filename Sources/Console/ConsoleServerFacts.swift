import API
import Foundation
import Operations
import Postgres
import RouteKit

/// What the Server page and the overview report about the server: set up by dispatchd, which
/// owns the pool, the heartbeat, the migrations and the backups.
package struct ConsoleServerFacts: Sendable {
    package let version: String
    package let startedAt: Date
    package let pool: PostgresPool
    /// Nil when the server runs without migration files (then the page lists none pending).
    package let migrator: Migrator?
    /// This process's heartbeat: its id (marked "this one") and interval (what counts as stale).
    package let heartbeat: InstanceHeartbeat
    package let errors: FailureRing
    /// The newest backup and its verification, read when a page asks.
    package let backups: @Sendable () -> ConsoleBackupSummary

    package init(version: String, startedAt: Date = Date(), pool: PostgresPool, migrator: Migrator?,
                 heartbeat: InstanceHeartbeat, errors: FailureRing,
                 backups: @escaping @Sendable () -> ConsoleBackupSummary = { ConsoleBackupSummary() }) {
        self.version = version
        self.startedAt = startedAt
        self.pool = pool
        self.migrator = migrator
        self.heartbeat = heartbeat
        self.errors = errors
        self.backups = backups
    }
}
