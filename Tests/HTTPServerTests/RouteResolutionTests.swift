import Foundation
import HTTP1
import HTTPServer
import Synchronization
import Testing

/// The route is matched once per request, before the middleware, and every layer reads that
/// one match from the context; authentication requirements come from route groups.
@Suite struct RouteResolutionTests {
    /// Records the route every request carried when it reached this layer.
    struct RecordRoute: Middleware {
        let box: Box

        func handle(_ request: HTTPRequest, _ context: RequestContext,
                    next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
            box.seen.withLock { $0.append(context.route?.label ?? "none") }
            return try next(request, context)
        }
    }

    final class Box: Sendable {
        let matches = Atomic<Int>(0)
        let seen = Mutex<[String]>([])
    }

    @Test func everyRequestIsMatchedExactlyOnce_andEveryLayerSeesThatMatch() throws {
        let box = Box()
        var router = Router()
        router.onResolve = { _ in box.matches.add(1, ordering: .relaxed) }
        router.group(auth: .required) { api in
            api.get("/items/{id}") { _, context in
                .response(HTTPResponse(body: Array("item \(try context.pathParameter("id")) \(context.route?.label ?? "-")".utf8)))
            }
        }
        router.group(auth: .anonymous) { open in
            open.get("/fast", runsOnEventLoop: true) { _, _ in .response(HTTPResponse(body: Array("fast".utf8))) }
        }
        let requests: [(String, Int, String)] = [
            ("GET /items/1", 200, "/items/{id}"), ("GET /fast", 200, "/fast"), ("HEAD /items/2", 200, "/items/{id}"),
            ("GET /nowhere", 404, "unmatched"), ("DELETE /items/1", 405, "unmatched"),
            ("OPTIONS /items/1", 204, "unmatched"), ("GET /items/%zz", 400, "unmatched"),
        ]
        let middleware: [any Middleware] = [LoggingMiddleware(), ErrorMiddleware(), RecordRoute(box: box)]
        try withServer(router: router, middleware: middleware) { _, port in
            let client = try RawClient(port: port)
            for (index, (line, status, _)) in requests.enumerated() {
                try client.send("\(line) HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse(forHead: line.hasPrefix("HEAD"))
                #expect(response.statusCode == status, "\(line)")
                #expect(box.matches.load(ordering: .relaxed) == index + 1, "\(line) was matched more than once")
            }
            #expect(try {
                try client.send("GET /items/7 HTTP/1.1\r\nHost: t\r\n\r\n")
                return try client.readResponse().bodyText
            }() == "item 7 /items/{id}")
        }
        #expect(box.matches.load(ordering: .relaxed) == requests.count + 1)
        #expect(box.seen.withLock { $0 } == requests.map(\.2) + ["/items/{id}"])
    }

    static func resolve(_ router: Router, _ method: HTTPMethod, _ target: String) -> ResolvedRoute {
        router.resolve(HTTPRequest(head: HTTPRequestHead(method: method, target: target, version: .http11,
                                                         headers: ["Host": "x"])))
    }

    /// Requirements come from the group a route was registered in, never from how its path
    /// looks: a protected route under a public route's path is protected, a public one
    /// registered under /v1 is public.
    @Test func authenticationComesFromTheRouteGroup() {
        var router = Router()
        let ok: RequestHandler = { _, _ in .response(HTTPResponse(status: .noContent)) }
        router.group(auth: .anonymous) { open in
            open.post("/v1/auth/login", handler: ok)
            open.get("/v1/avatars/{hash}", handler: ok)
            open.get("/v1/probe", handler: ok)
            open.get("/healthz", handler: ok)
        }
        router.group(auth: .required) { api in
            api.get("/v1/avatars/{hash}/owner", handler: ok)
            api.post("/v1/auth/login/history", handler: ok)
            api.get("/v1/me", handler: ok)
        }
        let cases: [(HTTPMethod, String, RouteAuthentication)] = [
            (.post, "/v1/auth/login", .anonymous), (.get, "/v1/avatars/abc", .anonymous),
            (.head, "/v1/avatars/abc", .anonymous), (.get, "/v1/probe", .anonymous), (.get, "/healthz", .anonymous),
            (.get, "/v1/avatars/abc/owner", .required), (.post, "/v1/auth/login/history", .required),
            (.get, "/v1/me", .required), (.get, "/%761/me", .required),
            // Unmatched: as strict as the routes under the same first segment, so anonymous
            // callers get 401 under /v1 and cannot probe which paths exist.
            (.get, "/v1/nowhere", .required), (.get, "/v1/auth/login", .required), (.get, "/v1", .required),
            (.get, "/v1/tasks/%zz", .required), (.get, "/elsewhere", .anonymous), (.delete, "/healthz", .anonymous),
            // CORS preflights carry no credentials; the router answers OPTIONS itself.
            (.options, "/v1/me", .anonymous), (.options, "/v1/nowhere", .anonymous),
        ]
        for (method, target, expected) in cases {
            #expect(Self.resolve(router, method, target).authentication == expected, "\(method.rawValue) \(target)")
        }
        let outside = Router()
        #expect(Self.resolve(outside, .get, "/v1/me").authentication == .anonymous)
    }
}
