import HTTP1
import HTTPServer
import Logging
import Postgres

/// Lets handlers simply `throw` database errors: they become the HTTP answer chosen by
/// `DatabaseErrorMapping`, and unexpected ones are logged here with their diagnostics (which
/// never go to the client).
public struct DatabaseErrorMiddleware: Middleware {
    public init() {}

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        do {
            return try next(request, context)
        } catch let error as PostgresError {
            let mapped = DatabaseErrorMapping.httpError(for: error)
            let level: Logger.Level = mapped.status.code >= 500 ? .error : .debug
            context.logger.log(level: level, "database error", metadata: [
                "error": .string(error.description), "status": .stringConvertible(mapped.status.code),
            ])
            throw mapped
        }
    }
}
