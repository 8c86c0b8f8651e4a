import HTTP1
import Logging

/// Logs one line per request: request id (the context logger's metadata), method, path
/// (without the query), client address (`RequestContext.clientAddress`), route pattern (from
/// `RequestContext.route`, `unmatched` for 404/405; omitted when the responder does not route),
/// status, duration in milliseconds, and whatever inner layers put in
/// `RequestContext.logFields` (the authenticated `user_id`). Never bodies,
/// queries or header values, so passwords and tokens cannot reach the log.
public struct LoggingMiddleware: Middleware {
    public let level: Logger.Level

    public init(level: Logger.Level = .info) {
        self.level = level
    }

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        // Below the logger's level the line is never written: skip building its fields (7 % of
        // a `/healthz` request's instructions, bench/callgrind, with LOG_LEVEL above info).
        guard context.logger.logLevel <= level else { return try next(request, context) }
        let start = ContinuousClock.now
        var line: Logger.Metadata = ["method": .string(request.method.rawValue), "path": .string(String(request.path)),
                                     "client_address": .string(context.clientAddress)]
        if let route = context.route { line["route"] = .string(route.label) }
        let fixed = line
        let logger = context.logger
        let level = level
        let fields = context.logFields
        let reply: HandlerReply
        do {
            reply = try next(request, context)
        } catch {
            let status = (error as? HTTPError)?.status.code ?? 500
            logger.log(level: level, "request", metadata: Self.metadata(fixed, fields, status, start))
            throw error
        }
        return reply.map { response in
            logger.log(level: level, "request", metadata: Self.metadata(fixed, fields, response.status.code, start))
            return response
        }
    }

    private static func metadata(_ fixed: Logger.Metadata, _ fields: RequestLogFields, _ status: Int,
                                 _ start: ContinuousClock.Instant) -> Logger.Metadata {
        let elapsed = ContinuousClock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        var metadata = fields.metadata.merging(fixed) { _, own in own }
        metadata["status"] = .stringConvertible(status)
        metadata["duration_ms"] = .stringConvertible(Double(micros) / 1000)
        return metadata
    }
}
