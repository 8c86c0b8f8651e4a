import HTTP1
import HTTPServer

/// Records every request's status and duration under its route pattern (the request's one
/// match, `RequestContext.route`; `unmatched` for 404/405). Sits outside the error middleware
/// so it sees the final status of thrown errors too.
package struct MetricsMiddleware: Middleware {
    let metrics: RequestMetrics

    package init(metrics: RequestMetrics) {
        self.metrics = metrics
    }

    package func handle(_ request: HTTPRequest, _ context: RequestContext,
                next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        let route = context.route?.pattern ?? RequestMetrics.unmatchedRoute
        let metrics = metrics
        let reply: HandlerReply
        do {
            reply = try next(request, context)
        } catch {
            metrics.record(route: route, method: method, status: (error as? HTTPError)?.status.code ?? 500,
                           seconds: Self.seconds(since: start))
            throw error
        }
        switch reply {
        case .webSocket:
            metrics.recordUpgrade()
            return reply
        case .deferred:
            // Only a long-poll that asked to wait parks for the client's sake; other deferred
            // answers (a password hash off the event loop) are the server's own work.
            let parked = (context.query["wait"].flatMap(Int.init) ?? 0) > 0
            return reply.map { response in
                metrics.record(route: route, method: method, status: response.status.code, seconds: Self.seconds(since: start), parked: parked)
                return response
            }
        case .response, .streamed:
            return reply.map { response in
                metrics.record(route: route, method: method, status: response.status.code, seconds: Self.seconds(since: start))
                return response
            }
        }
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
