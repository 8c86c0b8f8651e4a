import Logging
import Postgres

/// Ready when a pooled connection answers and the schema has every one of this build's
/// migrations, unedited. Migrations newer than the build are fine: in a rolling upgrade the
/// first new instance migrates while old ones still serve, and the expand/contract rule
/// (docs/operators/upgrades.md) keeps every migration readable by the previous release, so
/// the old instances stay in the load balancer's rotation. Whatever the database does (down,
/// or silent behind a partition), the answer comes within `answerLimit` (`ReadinessDeadline`).
package struct DatabaseReadinessCheck: ReadinessCheck {
    /// Below the 1 s that docs/operators/observability.md promises, leaving room to answer.
    package static let answerLimit: Duration = .milliseconds(800)
    package let pool: PostgresPool
    package let migrator: Migrator
    private let deadline = ReadinessDeadline(limit: Self.answerLimit)

    package init(pool: PostgresPool, migrator: Migrator) {
        self.pool = pool
        self.migrator = migrator
    }

    package func check() -> Readiness {
        let pool = pool
        let migrator = migrator
        return deadline.check { Self.checkNow(pool: pool, migrator: migrator) }
    }

    package static func checkNow(pool: PostgresPool, migrator: Migrator) -> Readiness {
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
