import Foundation
import HTTP1
@testable import HTTPServer
import JSON
import Logging
import Synchronization
import Testing

/// Collects log records in memory so tests can inspect what was logged.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var message: String
        var metadata: [String: String]
    }

    let entries = Mutex<[Entry]>([])

    var logger: Logger {
        Logger(label: "recorder") { _ in Handler(recorder: self) }
    }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = self.metadata.merging(event.metadata ?? [:]) { _, new in new }
            let entry = Entry(message: "\(event.message)", metadata: merged.mapValues { "\($0)" })
            recorder.entries.withLock { $0.append(entry) }
        }
    }
}

@Suite struct MiddlewareTests {
    static func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = ["Host": "x"]) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: method, target: target, version: .http11, headers: headers))
    }

    @Test func logging_recordsMethodPathStatusAndRequestID_neverQueryOrAuthorization() throws {
        let recorder = LogRecorder()
        let context = RequestContext(requestID: "req-1", logger: recorder.logger, remoteAddress: "1.2.3.4:5")
        var router = Router()
        router.post("/v1/login") { _, _ in .response(HTTPResponse(status: .created)) }
        let chain = MiddlewareChain(middleware: [LoggingMiddleware(), ErrorMiddleware()], responder: router)
        var request = Self.request(.post, "/v1/login?token=secret-query",
                                   headers: ["Host": "x", "Authorization": "Bearer secret-token"])
        request.body = Array("secret-body".utf8)
        _ = try chain.run(request, context)
        let entries = recorder.entries.withLock { $0 }
        #expect(entries.count == 1)
        let metadata = entries.first?.metadata ?? [:]
        #expect(metadata["method"] == "POST")
        #expect(metadata["path"] == "/v1/login")
        #expect(metadata["status"] == "201")
        #expect(metadata["request_id"] == "req-1")
        #expect(metadata["duration_ms"] != nil)
        let everything = entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("secret"))
    }

    /// Sets what an authentication layer would: a field for the request's log line.
    struct MarkUser: Middleware {
        func handle(_ request: HTTPRequest, _ context: RequestContext,
                    next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
            context.logFields["user_id"] = "user-7"
            return try next(request, context)
        }
    }

    @Test(arguments: [
        ("/v1/users/42", "/v1/users/{id}", "204"),
        ("/nowhere", "unmatched", "404"),
    ])
    func logging_withRouter_recordsRoutePatternAndFieldsSetByInnerLayers(target: String, route: String, status: String) throws {
        let recorder = LogRecorder()
        let context = RequestContext(requestID: "req-2", logger: recorder.logger, remoteAddress: "x")
        var router = Router()
        router.delete("/v1/users/{id}") { _, _ in .response(HTTPResponse(status: .noContent)) }
        let chain = MiddlewareChain(middleware: [LoggingMiddleware(), ErrorMiddleware(), MarkUser()],
                                    responder: router)
        _ = try chain.run(Self.request(.delete, target), context)
        let metadata = try #require(recorder.entries.withLock { $0 }.first?.metadata)
        #expect(metadata["route"] == route)
        #expect(metadata["status"] == status)
        #expect(metadata["user_id"] == "user-7")
    }

    @Test func errorMiddleware_rendersHTTPErrorWithDetailsHintAndExtraHeaders() throws {
        var router = Router()
        router.get("/fail") { _, _ in
            throw HTTPError(status: .unprocessableContent, code: "validation_failed", message: "Bad fields.",
                            details: ["title": "required", "count": 3], hint: "Fix them.",
                            extraHeaders: ["Retry-After": "5"])
        }
        let chain = MiddlewareChain(middleware: [ErrorMiddleware()], responder: router)
        let context = RequestContext(requestID: "r", logger: Logger(label: "t"), remoteAddress: "x")
        guard case .response(let response) = try chain.run(Self.request(.get, "/fail"), context) else {
            Issue.record("expected a response"); return
        }
        #expect(response.status == .unprocessableContent)
        #expect(response.headers["Retry-After"] == "5")
        #expect(response.headers["Content-Type"] == "application/json")
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
        #expect(decoded == ["code": "validation_failed", "message": "Bad fields.",
                            "details": ["title": "required", "count": 3], "hint": "Fix them."])
    }

    @Test func errorMiddleware_unknownError_is500AndLoggedServerSide() throws {
        struct Leak: Error { let sql = "SELECT secret" }
        let recorder = LogRecorder()
        var router = Router()
        router.get("/x") { _, _ in throw Leak() }
        let chain = MiddlewareChain(middleware: [ErrorMiddleware()], responder: router)
        let context = RequestContext(requestID: "r", logger: recorder.logger, remoteAddress: "x")
        guard case .response(let response) = try chain.run(Self.request(.get, "/x"), context) else {
            Issue.record("expected a response"); return
        }
        #expect(response.status == .internalServerError)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("SELECT"))
        #expect(recorder.entries.withLock { $0.contains { $0.metadata["error"]?.contains("SELECT secret") == true } })
    }

    @Test func jsonValue_roundTripsThroughJSON() throws {
        let value: JSONValue = ["a": [1, 2.5, "s", true, nil], "b": ["c": false]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }

    @Test func handlerReplyMap_onDeferred_appliesWhenCompleted() {
        let completion = ResponseCompletion()
        let reply = HandlerReply.deferred(completion).map { response in
            var response = response
            response.headers.add(name: "X-Mapped", value: "yes")
            return response
        }
        guard case .deferred(let same) = reply else { Issue.record("expected deferred"); return }
        let delivered = Mutex<HTTPResponse?>(nil)
        #expect(same.bind { response in delivered.withLock { $0 = response } } == nil)
        #expect(completion.complete(with: HTTPResponse(status: .accepted)))
        #expect(delivered.withLock { $0?.headers["X-Mapped"] } == "yes")
        #expect(!completion.complete(with: HTTPResponse()))
    }
}
