import Foundation
import HTTP1
import HTTPServer
import Logging

/// Records every 5xx answer, and every 4xx and 5xx answer to an authenticated caller, in a
/// `FailureRing`. It reads what the inner layers wrote on the request's shared log fields
/// (`user_id` from the authentication, `error_code` from the error renderer), so it goes
/// outside the error middleware: it sees the rendered answer.
package struct FailureRingMiddleware: Middleware {
    let ring: FailureRing

    package init(ring: FailureRing) {
        self.ring = ring
    }

    package func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        let ring = ring
        let method = request.method.rawValue
        let route = context.route?.label ?? ResolvedRoute.unmatchedLabel
        let requestID = context.requestID
        let fields = context.logFields
        return try next(request, context).map { response in
            var userID: String?
            if case .string(let text)? = fields["user_id"] { userID = text }
            guard response.status.code >= 500 || (response.status.code >= 400 && userID != nil) else { return response }
            var code: String?
            if case .string(let text)? = fields["error_code"] { code = text }
            ring.record(userID: userID, FailureRing.Entry(at: Date(), method: method, route: route, status: response.status.code,
                                                          errorCode: code, requestID: requestID))
            return response
        }
    }
}
