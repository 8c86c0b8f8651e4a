import Foundation
import ServiceKit
import Synchronization

/// The outcome of the server's scheduled backups, for `/metrics` and `/readyz`. The backups
/// themselves run in the executable (they need pg_dump); this only keeps what happened.
package final class BackupStatus: MetricsSource {
    /// The file and the error stay in the log: this is shown unauthenticated (`/readyz`).
    package struct Attempt: Sendable, Equatable {
        package var finishedAt: Date
        package var succeeded: Bool

        package init(finishedAt: Date, succeeded: Bool) {
            self.finishedAt = finishedAt
            self.succeeded = succeeded
        }
    }

    /// How old the last successful backup may be and still count as fresh: a day, plus the
    /// hour the daily schedule may take to notice a new UTC day, plus an hour for the backup
    /// itself (docs/operators/backups.md).
    package static let freshFor: TimeInterval = 26 * 3600

    package struct Snapshot: Sendable, Equatable {
        package var last: Attempt?
        package var lastSuccessAt: Date?
    }

    private let state = Mutex(Snapshot(last: nil, lastSuccessAt: nil))

    package init() {}

    package func record(_ attempt: Attempt) {
        state.withLock {
            $0.last = attempt
            if attempt.succeeded { $0.lastSuccessAt = attempt.finishedAt }
        }
    }

    package var snapshot: Snapshot { state.withLock { $0 } }

    /// The `backup` member of a ready `/readyz` answer: whether the last successful backup is
    /// fresh, and nothing else, since anyone may call it (no path, no error text, no times:
    /// those are in the log and on `/metrics`). A stale backup does not make the server
    /// unready (it can still serve); it is reported so an operator's probe sees it.
    package struct Report: Encodable, Equatable {
        var fresh: Bool
    }

    package func report(at now: Date = Date()) -> Report {
        guard let success = snapshot.lastSuccessAt else { return Report(fresh: false) }
        return Report(fresh: now.timeIntervalSince(success) < Self.freshFor)
    }

    package func writeMetrics(to output: inout PrometheusText) {
        let now = snapshot
        output.family("backup_last_success_timestamp_seconds", type: "gauge", help: "When the last scheduled backup succeeded (Unix time; 0: none yet).")
        output.sample("backup_last_success_timestamp_seconds", [], now.lastSuccessAt?.timeIntervalSince1970 ?? 0)
        output.family("backup_last_attempt_timestamp_seconds", type: "gauge", help: "When the last scheduled backup finished, successful or not (Unix time; 0: none yet).")
        output.sample("backup_last_attempt_timestamp_seconds", [], now.last?.finishedAt.timeIntervalSince1970 ?? 0)
        output.family("backup_last_attempt_succeeded", type: "gauge", help: "1 when the last scheduled backup succeeded, 0 when it failed or none ran yet.")
        output.sample("backup_last_attempt_succeeded", [], now.last?.succeeded == true ? 1 : 0)
    }
}
