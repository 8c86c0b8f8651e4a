import API
import Foundation
import Postgres

/// What the Server page reports about this process: set up by dispatchd, which owns the
/// pool, the metrics and the migrations.
package struct ConsoleServerFacts: Sendable {
    package let version: String
    package let startedAt: Date
    package let pool: PostgresPool
    /// Nil when the server runs without migration files (then the page lists none pending).
    package let migrator: Migrator?
    package let sampler: MetricsSampler
    package let errors: ErrorRing

    package init(version: String, startedAt: Date = Date(), pool: PostgresPool, migrator: Migrator?,
                sampler: MetricsSampler, errors: ErrorRing) {
        self.version = version
        self.startedAt = startedAt
        self.pool = pool
        self.migrator = migrator
        self.sampler = sampler
        self.errors = errors
    }
}
