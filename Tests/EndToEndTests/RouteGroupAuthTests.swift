import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import HTTP1
import HTTPServer
import Synchronization
import Testing

/// The whole application (logging, metrics, compression, errors, authentication, dispatch)
/// over real sockets: each request is matched once, and who may call a route is what its
/// group declares.
@Suite struct RouteGroupAuthTests {
    final class Counter: Sendable {
        let matches = Atomic<Int>(0)
    }

    /// Adds a public route under /v1 and a protected one below the public avatar path, as a
    /// later change might.
    static func addProbeRoutes(_ router: inout Router) {
        router.group(auth: .anonymous) { open in
            open.get("/v1/probe/public") { _, _ in .response(HTTPResponse(body: Array("public".utf8))) }
        }
        router.group(auth: .required) { api in
            api.get("/v1/avatars/{hash}/owner") { _, context in
                .response(HTTPResponse(body: Array((context.principal == nil ? "nobody" : "someone").utf8)))
            }
        }
    }

    @Test func authenticationFollowsTheGroupNotThePath() throws {
        let app = try AuthTestServer(adjustRouter: Self.addProbeRoutes)
        let token = try app.login().access

        let open = try app.request("GET", "/v1/probe/public")
        #expect(open.status == 200)
        #expect(String(decoding: open.body, as: UTF8.self) == "public")

        let anonymous = try app.request("GET", "/v1/avatars/abc/owner")
        #expect(anonymous.status == 401)
        #expect(anonymous.json?["code"] as? String == "unauthorized")
        #expect(anonymous.header("WWW-Authenticate") == "Bearer")
        let signedIn = try app.request("GET", "/v1/avatars/abc/owner", token: token)
        #expect(signedIn.status == 200)
        #expect(String(decoding: signedIn.body, as: UTF8.self) == "someone")

        // The declared public routes stay public; everything else under /v1 stays protected,
        // including paths that match nothing and percent-encoded spellings of /v1.
        #expect(try app.request("GET", "/v1/avatars/\(String(repeating: "a", count: 64))").status == 404)
        #expect(try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": "x"]).status == 401)
        for path in ["/v1/me", "/%761/me", "/v1/nowhere", "/v1/tasks/%zz"] {
            let response = try app.request("GET", path)
            #expect(response.status == 401, "\(path)")
            #expect(response.json?["code"] as? String == "unauthorized", "\(path)")
        }
        #expect(try app.request("GET", "/v1/nowhere", token: token).status == 404)
        #expect(try app.request("GET", "/v1/tasks/%zz", token: token).status == 400)
        let notAllowed = try app.request("DELETE", "/v1/me", token: token)
        #expect(notAllowed.status == 405)
        #expect(notAllowed.header("Allow") == "GET, HEAD, PATCH")
        #expect(try app.request("OPTIONS", "/v1/me").status == 204)
    }

    @Test func eachRequestIsMatchedOnceThroughTheWholeMiddlewareChain() throws {
        let counter = Counter()
        let app = try AuthTestServer { router in
            router.onResolve = { _ in counter.matches.add(1, ordering: .relaxed) }
        }
        let token = try app.login().access
        var sent = 1
        let requests: [(String, String, String?, Int)] = [
            ("GET", "/v1/me", token, 200), ("GET", "/v1/me", nil, 401), ("GET", "/v1/nowhere", nil, 401),
            ("GET", "/v1/nowhere", token, 404), ("DELETE", "/v1/me", token, 405), ("GET", "/healthz", nil, 200),
            ("GET", "/v1/tasks", token, 200), ("OPTIONS", "/v1/tasks", nil, 204), ("GET", "/metrics", nil, 200),
        ]
        for (method, path, token, status) in requests {
            #expect(try app.request(method, path, token: token).status == status, "\(method) \(path)")
            sent += 1
            #expect(counter.matches.load(ordering: .relaxed) == sent, "\(method) \(path)")
        }
        let metrics = String(decoding: try app.client.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"http_requests_total{route="/v1/me",method="GET",status="401"} 1"#))
        #expect(metrics.contains(#"http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(metrics.contains(#"http_requests_total{route="unmatched",method="DELETE",status="405"} 1"#))
    }
}
