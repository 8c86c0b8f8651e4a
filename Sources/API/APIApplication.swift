import HTTPServer
import Logging

/// The HTTP application: every route family registered on one router, and the middleware
/// that wraps them. Each family lives in its own `…Routes.swift` and is added here.
public struct APIApplication: Sendable {
    public let readiness: any ReadinessCheck
    public let metrics: [any MetricsSource]

    public init(readiness: any ReadinessCheck, metrics: [any MetricsSource] = []) {
        self.readiness = readiness
        self.metrics = metrics
    }

    public func makeRouter() -> Router {
        var router = Router()
        OperationsRoutes.register(on: &router, readiness: readiness, metrics: metrics)
        return router
    }

    /// Outermost first: log every request with its final status, render errors as JSON, and
    /// map database errors before that rendering sees them.
    public var middleware: [any Middleware] {
        [LoggingMiddleware(), ErrorMiddleware(), DatabaseErrorMiddleware()]
    }
}
