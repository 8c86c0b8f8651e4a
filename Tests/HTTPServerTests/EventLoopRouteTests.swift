import Foundation
import HTTP1
import HTTPServer
import Testing

@Suite struct EventLoopRouteTests {
    /// With the only worker blocked, a `runsOnEventLoop` route must still answer: it never
    /// goes through the worker pool. (Without the fast path this request would wait ~10 s and
    /// the client's 3 s read timeout would fail the test.)
    @Test func eventLoopRoute_whileEveryWorkerIsBlocked_isStillAnswered() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var router = Router()
        router.get("/block") { _, _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 10)
            return .response(HTTPResponse(body: Array("unblocked".utf8)))
        }
        router.get("/inline", runsOnEventLoop: true) { _, _ in
            .response(HTTPResponse(body: Array("inline".utf8)))
        }
        try withServer(testConfiguration { $0.workerCount = 1; $0.idleTimeout = .seconds(20) }, router: router) { _, port in
            let blocked = try RawClient(port: port)
            try blocked.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(entered.wait(timeout: .now() + 5) == .success)

            let fast = try RawClient(port: port, readTimeoutSeconds: 3)
            try fast.send("GET /inline HTTP/1.1\r\nHost: t\r\n\r\nHEAD /inline HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try fast.readResponse()
            #expect(response.statusCode == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "inline")
            let head = try fast.readResponse(forHead: true)
            #expect(head.statusCode == 200)

            release.signal()
            #expect(String(decoding: try blocked.readResponse().body, as: UTF8.self) == "unblocked")
        }
    }
}
