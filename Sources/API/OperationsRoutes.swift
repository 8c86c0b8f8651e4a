import Domain
import HTTP1
import HTTPServer

/// Unauthenticated routes for load balancers and orchestrators (contract §5, "Operations").
enum OperationsRoutes {
    static func register(on router: inout Router, readiness: any ReadinessCheck) {
        // Liveness: answers while the process can serve HTTP at all. No database access, so a
        // database outage never gets healthy instances restarted.
        router.get("/healthz", runsOnEventLoop: true) { _, _ in
            .response(try .json(["status": "ok"]))
        }

        // Readiness: database reachable and fully migrated; otherwise 503 so traffic is routed
        // elsewhere until it is.
        router.get("/readyz") { _, context in
            switch readiness.check() {
            case .ready:
                return .response(try .json(["status": "ready"]))
            case .notReady(let reason):
                context.logger.warning("not ready", metadata: ["reason": .string(reason)])
                // 503 with Retry-After, like every transient failure.
                throw DomainError(.unavailable, .notReady, "The server is not ready to serve requests.",
                                  details: ["reason": .string(reason)])
            }
        }
    }
}
