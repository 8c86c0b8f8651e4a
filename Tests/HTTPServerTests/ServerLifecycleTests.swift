import Foundation
import Glibc
import HTTP1
import HTTPServer
import Logging
import Synchronization
import Testing

/// Lets a test wait (with a safety timeout) for something another thread does.
final class Latch: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func signal() { semaphore.signal() }
    func wait(seconds: Double = 5) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }
}

/// Holds the completion a deferred handler parked.
final class Parked: Sendable {
    let completion = Mutex<ResponseCompletion?>(nil)
    let parked = Latch()
    let cancelled = Latch()
}

@Suite struct ServerLifecycleTests {
    @Test func shutdown_withRequestInFlight_finishesItRefusesNewAndStops() throws {
        var router = Router()
        let entered = Latch()
        router.get("/slow") { _, _ in
            entered.signal()
            usleep(300_000)
            return .response(HTTPResponse(body: Array("done".utf8)))
        }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = HTTPServer(configuration: testConfiguration(), responder: router, logger: logger)
        let stopped = Latch()
        let runner = Thread {
            do { try server.run() } catch { Issue.record("run threw \(error)") }
            stopped.signal()
        }
        runner.start()
        var port = 0
        for _ in 0..<500 where port == 0 { port = server.boundPort; usleep(2_000) }
        let client = try RawClient(port: port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(entered.wait())
        server.shutdown()
        let response = try client.readResponse()
        #expect(response.bodyText == "done")
        #expect(response.header("Connection") == "close")
        #expect(stopped.wait())
        #expect(throws: RawClient.ClientError.self) { try RawClient(port: port) }
    }

    @Test func shutdown_closesIdleConnections() throws {
        try withServer { server, port in
            let client = try RawClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().statusCode == 200)
            server.shutdown()
            #expect(client.waitForClose())
        }
    }

    @Test func deferredResponse_completedFromAnotherThread_isWritten() throws {
        let parked = Parked()
        var router = Router()
        router.get("/wait") { _, _ in
            let completion = ResponseCompletion()
            parked.completion.withLock { $0 = completion }
            parked.parked.signal()
            return .deferred(completion)
        }
        router.get("/hello") { _, _ in .response(HTTPResponse(body: Array("hello".utf8))) }
        try withServer(testConfiguration { $0.workerCount = 1 }, router: router, middleware: [LoggingMiddleware()]) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(parked.parked.wait())
            // With one worker, this proves the deferred request holds no thread.
            let other = try RawClient(port: port)
            try other.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try other.readResponse().bodyText == "hello")
            let completer = Thread {
                let completion = parked.completion.withLock { $0 }
                completion?.complete(with: HTTPResponse(status: .accepted, body: Array("event".utf8)))
            }
            completer.start()
            let response = try client.readResponse()
            #expect(response.statusCode == 202)
            #expect(response.bodyText == "event")
            #expect(response.header("X-Request-Id") != nil)
        }
    }

    @Test func deferredResponse_clientDisconnects_firesOnCancelAndIgnoresLateCompletion() throws {
        let parked = Parked()
        var router = Router()
        router.get("/wait") { _, _ in
            let completion = ResponseCompletion(onCancel: { parked.cancelled.signal() })
            parked.completion.withLock { $0 = completion }
            parked.parked.signal()
            return .deferred(completion)
        }
        try withServer(router: router) { _, port in
            var client: RawClient? = try RawClient(port: port)
            try client?.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(parked.parked.wait())
            client = nil // closes the socket
            #expect(parked.cancelled.wait())
            let completion = parked.completion.withLock { $0 }
            #expect(completion?.isCancelled == true)
            #expect(completion?.complete(with: HTTPResponse()) == false)
        }
    }

    @Test func deferredResponse_atShutdown_isAnswered503() throws {
        let parked = Parked()
        var router = Router()
        router.get("/wait") { _, _ in
            let completion = ResponseCompletion(onCancel: { parked.cancelled.signal() })
            parked.completion.withLock { $0 = completion }
            parked.parked.signal()
            return .deferred(completion)
        }
        try withServer(router: router) { server, port in
            let client = try RawClient(port: port)
            try client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(parked.parked.wait())
            server.shutdown()
            let response = try client.readResponse()
            #expect(response.statusCode == 503)
            #expect(response.bodyText.contains(#""code":"shutting_down""#))
            #expect(parked.cancelled.wait())
        }
    }

    @Test func startOnPortInUse_throwsAddressInUse() throws {
        try withServer { _, port in
            let second = HTTPServer(configuration: testConfiguration { $0.port = port }, responder: Router())
            #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: port)) { try second.start() }
        }
    }

    @Test func cors_preflightAndSimpleRequest_getHeaders() throws {
        try withServer(testConfiguration { $0.corsAllowedOrigins = ["https://app.example"] }) { _, port in
            let client = try RawClient(port: port)
            try client.send("OPTIONS /hello HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\nAccess-Control-Request-Method: GET\r\n\r\n")
            let preflight = try client.readResponse()
            #expect(preflight.statusCode == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example")
            let allowed = Set((preflight.header("Access-Control-Allow-Headers") ?? "").lowercased()
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            // What supabase-js sends on every call; a browser refuses the call without them.
            #expect(allowed.isSuperset(of: ["apikey", "authorization", "x-client-info", "content-type", "prefer", "range"]))
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\n\r\n")
            #expect(try client.readResponse().header("Access-Control-Allow-Origin") == nil)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\n\r\n")
            #expect(try client.readResponse().header("Access-Control-Allow-Origin") == "https://app.example")
        }
    }
}

@Suite struct ServerSignalTests {
    @Test func sigterm_afterInstallSignalHandlers_shutsDownGracefully() throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = HTTPServer(configuration: testConfiguration(), responder: standardRouter(), logger: logger)
        server.installSignalHandlers()
        try server.start()
        let client = try RawClient(port: server.boundPort)
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().statusCode == 200)
        let stopped = Latch()
        Thread {
            server.waitUntilStopped()
            stopped.signal()
        }.start()
        kill(getpid(), SIGTERM)
        #expect(stopped.wait())
        #expect(client.waitForClose())
    }
}
