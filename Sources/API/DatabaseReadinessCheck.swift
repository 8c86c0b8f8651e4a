import Logging
import Postgres

/// Ready when a pooled connection answers and the schema has every one of this build's
/// migrations, unedited. Migrations newer than the build are fine: in a rolling upgrade the
/// first new instance migrates while old ones still serve, and the expand/contract rule
/// (docs/operators/upgrades.md) keeps every migration readable by the previous release, so
/// the old instances stay in the load balancer's rotation. A database outage answers "not
/// ready" within the pool's acquisition timeout instead of hanging the probe.
public struct DatabaseReadinessCheck: ReadinessCheck {
    let pool: PostgresPool
    let migrator: Migrator

    public init(pool: PostgresPool, migrator: Migrator) {
        self.pool = pool
        self.migrator = migrator
    }

    public func check() -> Readiness {
        do {
            let status = try migrator.status(pool: pool)
            if !status.checksumMismatches.isEmpty { return .notReady(reason: "applied migrations differ from this server's files") }
            if !status.pending.isEmpty { return .notReady(reason: "database is not fully migrated") }
            return .ready
        } catch let error as PostgresError where error.kind == .poolTimeout {
            return .notReady(reason: "no database connection became available in time")
        } catch let error as PostgresError where error.isConnectionError || error.kind == .closed {
            return .notReady(reason: "database unreachable")
        } catch is MigrationError {
            return .notReady(reason: "migration files are unreadable or inconsistent")
        } catch {
            return .notReady(reason: "database check failed")
        }
    }
}
