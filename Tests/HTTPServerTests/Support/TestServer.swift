import HTTP1
import HTTPServer
import Logging

/// Short timeouts so timeout tests finish quickly; generous enough for a loaded 2-core machine.
func testConfiguration(_ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) -> HTTPServerConfiguration {
    var configuration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0,
        headerReadTimeout: .milliseconds(400), bodyReadTimeout: .milliseconds(400),
        idleTimeout: .milliseconds(400), writeTimeout: .seconds(2),
        maxConnections: 100, workerCount: 4, shutdownGracePeriod: .seconds(3))
    adjust(&configuration)
    return configuration
}

/// A router with the routes most tests use.
func standardRouter() -> Router {
    var router = Router()
    router.get("/hello") { _, _ in .response(HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: Array("hello".utf8))) }
    router.post("/echo") { request, _ in .response(HTTPResponse(status: .ok, body: request.body)) }
    router.get("/count/{n}") { _, context in
        .response(HTTPResponse(body: Array(try context.pathParameter("n").utf8)))
    }
    router.get("/v1/tasks/{id}/claim") { _, context in
        .response(try .json(["id": try context.pathParameter("id"), "q": context.query["q"] ?? ""]))
    }
    router.post("/v1/tasks/{id}/claim") { _, _ in .response(HTTPResponse(status: .created)) }
    router.get("/boom") { _, _ in
        struct Secret: Error { let detail = "password=hunter2" }
        throw Secret()
    }
    return router
}

/// Starts a server on an ephemeral port, runs `body`, then shuts it down and waits for it.
func withServer(_ configuration: HTTPServerConfiguration = testConfiguration(),
                router: Router = standardRouter(), middleware: [any Middleware] = [],
                _ body: (HTTPServer, Int) throws -> Void) throws {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    let server = HTTPServer(configuration: configuration, responder: router, middleware: middleware, logger: logger)
    try server.start()
    defer {
        server.shutdown(deadline: .milliseconds(500))
        server.waitUntilStopped()
    }
    try body(server, server.boundPort)
}
