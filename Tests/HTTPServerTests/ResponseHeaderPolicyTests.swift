import Foundation
import HTTP1
import HTTPServer
import Testing

/// `X-Content-Type-Options: nosniff` on every response the server writes, and
/// `Cache-Control: no-store` unless the handler chose its own caching.
@Suite struct ResponseHeaderPolicyTests {
    static func router() -> Router {
        var router = standardRouter()
        router.get("/cached") { _, _ in
            .response(HTTPResponse(status: .ok, headers: ["Cache-Control": "public, max-age=60"], body: Array("x".utf8)))
        }
        return router
    }

    @Test(arguments: ["GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n",
                      "GET /boom HTTP/1.1\r\nHost: x\r\n\r\n", "HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n",
                      // Protocol errors answered by the connection itself, before any handler.
                      "GARBAGE\r\n\r\n", "GET /hello HTTP/1.1\r\n\r\n", "GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"])
    func everyResponseIsNosniffAndNotStored(_ request: String) throws {
        try withServer(router: Self.router()) { _, port in
            let client = try RawClient(port: port)
            try client.send(request)
            let response = try client.readResponse(forHead: request.hasPrefix("HEAD"))
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(response.statusCode)")
            #expect(response.header("Cache-Control") == "no-store", "\(response.statusCode)")
            #expect(response.headers.filter { $0.0.lowercased() == "x-content-type-options" }.count == 1)
        }
    }

    @Test func handlerCachingIsKept() throws {
        try withServer(router: Self.router()) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /cached HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.header("Cache-Control") == "public, max-age=60")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
        }
    }
}
