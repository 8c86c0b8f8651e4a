import HTTP1
import Logging

/// Logs one line per request: method, path (without query), status, duration, request id
/// (via the context logger's metadata). Never bodies, queries or Authorization.
public struct LoggingMiddleware: Middleware {
    public let level: Logger.Level

    public init(level: Logger.Level = .info) { self.level = level }

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        let path = String(request.path)
        let logger = context.logger
        let level = level
        let reply: HandlerReply
        do {
            reply = try next(request, context)
        } catch {
            let status = (error as? HTTPError)?.status.code ?? 500
            logger.log(level: level, "request", metadata: Self.metadata(method, path, status, start))
            throw error
        }
        return reply.map { response in
            logger.log(level: level, "request", metadata: Self.metadata(method, path, response.status.code, start))
            return response
        }
    }

    private static func metadata(_ method: String, _ path: String, _ status: Int,
                                 _ start: ContinuousClock.Instant) -> Logger.Metadata {
        let elapsed = ContinuousClock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        return ["method": .string(method), "path": .string(path), "status": .stringConvertible(status),
                "duration_ms": .string(String(format3: Double(micros) / 1000))]
    }
}

extension String {
    /// Three decimals without Foundation's formatter.
    init(format3 value: Double) {
        let thousandths = Int((value * 1000).rounded())
        let fraction = thousandths % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        self = "\(thousandths / 1000).\(padded)"
    }
}
