import Foundation
import HTTP1
import HTTPServer
import Synchronization

/// The last server errors (5xx answers) in memory, newest first, for the console's Server page.
/// Bounded, so a storm of failures costs a fixed amount of memory; lost on restart by design
/// (the logs keep everything).
package final class ErrorRing: Sendable {
    package struct Entry: Sendable {
        package var at: Date
        package var method: String
        package var route: String
        package var status: Int
        package var requestID: String
    }

    package let capacity: Int
    private let entries = Mutex<[Entry]>([])

    package init(capacity: Int = 50) {
        self.capacity = capacity
    }

    package func record(_ entry: Entry) {
        entries.withLock { entries in
            entries.insert(entry, at: 0)
            if entries.count > capacity { entries.removeLast(entries.count - capacity) }
        }
    }

    package var recent: [Entry] { entries.withLock { $0 } }
}

/// Records every 5xx answer in an `ErrorRing` (with the route pattern, never the raw path,
/// and the request id to find it in the logs). Goes outermost, so it sees final answers.
package struct ErrorRingMiddleware: Middleware {
    let ring: ErrorRing

    package init(ring: ErrorRing) {
        self.ring = ring
    }

    package func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        let ring = ring
        let method = request.method.rawValue
        let route = context.route?.label ?? ResolvedRoute.unmatchedLabel
        let requestID = context.requestID
        return try next(request, context).map { response in
            if response.status.code >= 500 {
                ring.record(ErrorRing.Entry(at: Date(), method: method, route: route, status: response.status.code, requestID: requestID))
            }
            return response
        }
    }
}
