import Foundation
import Synchronization

/// The outcome of the server's scheduled backups, for `/metrics` and `/readyz`. The backups
/// themselves run in the executable (they need pg_dump); this only keeps what happened.
public final class BackupStatus: Sendable {
    public struct Attempt: Sendable, Equatable {
        public var finishedAt: Date
        public var succeeded: Bool
        /// The file written (success) or the error's sentence (failure).
        public var detail: String

        public init(finishedAt: Date, succeeded: Bool, detail: String) {
            self.finishedAt = finishedAt
            self.succeeded = succeeded
            self.detail = detail
        }
    }

    public struct Snapshot: Sendable, Equatable {
        public var last: Attempt?
        public var lastSuccessAt: Date?
    }

    private let state = Mutex(Snapshot(last: nil, lastSuccessAt: nil))

    public init() {}

    public func record(_ attempt: Attempt) {
        state.withLock {
            $0.last = attempt
            if attempt.succeeded { $0.lastSuccessAt = attempt.finishedAt }
        }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }

    /// The `backup` member of a ready `/readyz` answer. A failed backup does not make the
    /// server unready (it can still serve); it is reported so an operator's probe sees it.
    struct Report: Encodable {
        var lastResult: String
        var lastAttemptAt: String?
        var lastSuccessAt: String?
        var detail: String?

        enum CodingKeys: String, CodingKey {
            case lastResult = "last_result", lastAttemptAt = "last_attempt_at", lastSuccessAt = "last_success_at", detail
        }
    }

    var report: Report {
        let now = snapshot
        let stamp = { (date: Date) in ISO8601DateFormatter().string(from: date) }
        return Report(lastResult: now.last.map { $0.succeeded ? "ok" : "failed" } ?? "none",
                      lastAttemptAt: now.last.map { stamp($0.finishedAt) }, lastSuccessAt: now.lastSuccessAt.map(stamp),
                      detail: now.last?.detail)
    }

    func writeMetrics(to output: inout PrometheusText) {
        let now = snapshot
        output.family("backup_last_success_timestamp_seconds", type: "gauge", help: "When the last scheduled backup succeeded (Unix time; 0: none yet).")
        output.sample("backup_last_success_timestamp_seconds", [], now.lastSuccessAt?.timeIntervalSince1970 ?? 0)
        output.family("backup_last_attempt_timestamp_seconds", type: "gauge", help: "When the last scheduled backup finished, successful or not (Unix time; 0: none yet).")
        output.sample("backup_last_attempt_timestamp_seconds", [], now.last?.finishedAt.timeIntervalSince1970 ?? 0)
        output.family("backup_last_attempt_succeeded", type: "gauge", help: "1 when the last scheduled backup succeeded, 0 when it failed or none ran yet.")
        output.sample("backup_last_attempt_succeeded", [], now.last?.succeeded == true ? 1 : 0)
    }
}
