import Domain
import HTTP1
import HTTPServer
import ServiceKit

/// Unauthenticated routes for load balancers and orchestrators (contract §5, "Operations").
package enum OperationsRoutes {
    static let healthzBody: [UInt8] = Array(#"{"status":"ok"}"#.utf8)

    /// With `backups`, a ready answer also reports the last scheduled backup (`backup`).
    /// Liveness, readiness and `/metrics` (`metrics`: what each capability reports, in order).
    package static func register(on router: inout Router, readiness: any ReadinessCheck, backups: BackupStatus? = nil,
                                 metrics: [any MetricsSource]) {
        MetricsRoutes.register(on: &router, sources: metrics)
        // Liveness: answers while the process can serve HTTP at all. No database access, so a
        // database outage never gets healthy instances restarted.
        // The body never changes, so it is built once: encoding it with JSONEncoder on every
        // probe was 14 % of the request's instructions (bench/callgrind).
        router.get("/healthz", runsOnEventLoop: true) { _, _ in
            .response(HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: healthzBody))
        }

        // Readiness: database reachable and fully migrated; otherwise 503 so traffic is routed
        // elsewhere until it is.
        router.get("/readyz") { _, context in
            switch readiness.check() {
            case .ready:
                guard let backups else { return .response(try .json(["status": "ready"])) }
                return .response(try .json(ReadyWithBackup(status: "ready", backup: backups.report())))
            case .notReady(let reason):
                context.logger.warning("not ready", metadata: ["reason": .string(reason)])
                // 503 with Retry-After, like every transient failure.
                throw DomainError(.unavailable, .notReady, "The server is not ready to serve requests.",
                                  details: ["reason": .string(reason)])
            }
        }
    }
}

/// A ready `/readyz` answer with the scheduled backups' report.
private struct ReadyWithBackup: Encodable {
    var status: String
    var backup: BackupStatus.Report
}
