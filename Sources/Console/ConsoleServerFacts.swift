import API
import Foundation
import Postgres

/// What the Server page reports about this process: set up by dispatchd, which owns the
/// pool, the metrics and the migrations.
public struct ConsoleServerFacts: Sendable {
    public let version: String
    public let startedAt: Date
    public let pool: PostgresPool
    /// Nil when the server runs without migration files (then the page lists none pending).
    public let migrator: Migrator?
    public let sampler: MetricsSampler
    public let errors: ErrorRing

    public init(version: String, startedAt: Date = Date(), pool: PostgresPool, migrator: Migrator?,
                sampler: MetricsSampler, errors: ErrorRing) {
        self.version = version
        self.startedAt = startedAt
        self.pool = pool
        self.migrator = migrator
        self.sampler = sampler
        self.errors = errors
    }
}
