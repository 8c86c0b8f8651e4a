import HTTP1
@testable import HTTPServer
import Logging
import Testing

@Suite struct RouterTests {
    static let router: Router = {
        var router = Router()
        for (method, pattern) in [("GET", "/"), ("GET", "/v1/tasks"), ("POST", "/v1/tasks"),
                                  ("GET", "/v1/tasks/{id}"), ("GET", "/v1/tasks/mine"),
                                  ("POST", "/v1/tasks/{id}/claim"), ("DELETE", "/v1/tasks/{taskID}/notes/{noteID}"),
                                  ("GET", "/v1/files/{name}")] {
            router.on(HTTPMethod(method), pattern) { _, _ in
                .response(HTTPResponse(body: Array("\(method) \(pattern)".utf8)))
            }
        }
        return router
    }()

    enum Expected: Sendable { case route(String, [String: String]), notFound, notAllowed([String]) }

    @Test(arguments: [
        ("GET", "/", Expected.route("GET /", [:])),
        ("GET", "/v1/tasks", .route("GET /v1/tasks", [:])),
        ("POST", "/v1/tasks", .route("POST /v1/tasks", [:])),
        ("GET", "/v1/tasks/42", .route("GET /v1/tasks/{id}", ["id": "42"])),
        ("GET", "/v1/tasks/mine", .route("GET /v1/tasks/mine", [:])),
        ("POST", "/v1/tasks/mine/claim", .route("POST /v1/tasks/{id}/claim", ["id": "mine"])),
        ("HEAD", "/v1/tasks/7", .route("GET /v1/tasks/{id}", ["id": "7"])),
        ("DELETE", "/v1/tasks/a/notes/b", .route("DELETE /v1/tasks/{taskID}/notes/{noteID}", ["taskID": "a", "noteID": "b"])),
        ("GET", "/v1/files/a%2Fb%20c", .route("GET /v1/files/{name}", ["name": "a/b c"])),
        ("GET", "/v1/tasks/", .notFound),
        ("GET", "/v1/nothing", .notFound),
        ("GET", "/v1/tasks/1/claim", .notAllowed(["POST"])),
        ("PUT", "/v1/tasks", .notAllowed(["GET", "HEAD", "POST"])),
        ("GET", "*", .notFound),
    ])
    func match_table(method: String, path: String, expected: Expected) throws {
        let head = HTTPRequestHead(method: HTTPMethod(method), target: path, version: .http11, headers: ["Host": "x"])
        let match = Self.router.resolve(HTTPRequest(head: head))
        switch (match.outcome, expected) {
        case (.found(let handler), .route(let name, let expectedParameters)):
            let context = RequestContext(requestID: "t", logger: Logger(label: "t"), remoteAddress: "x")
            guard case .response(let response) = try handler(HTTPRequest(head: head), context) else {
                Issue.record("expected a response"); return
            }
            #expect(String(decoding: response.body, as: UTF8.self) == name)
            #expect(match.parameters == expectedParameters)
            #expect(match.pattern.map { "\(method == "HEAD" ? "GET" : method) \($0)" } == name)
        case (.notFound, .notFound):
            break
        case (.methodNotAllowed(let allow), .notAllowed(let expectedAllow)):
            #expect(allow == expectedAllow)
        default:
            Issue.record("\(method) \(path): got \(match.outcome), expected \(expected)")
        }
    }

    @Test func match_malformedPercentEncoding_throws400() throws {
        let head = HTTPRequestHead(method: .get, target: "/v1/tasks/%zz", version: .http11, headers: ["Host": "x"])
        guard case .invalidPath(let error) = Self.router.resolve(HTTPRequest(head: head)).outcome else {
            Issue.record("expected invalidPath"); return
        }
        #expect(error.status == .badRequest)
        let context = RequestContext(requestID: "t", logger: Logger(label: "t"), remoteAddress: "x")
        #expect(throws: HTTPError.self) { try Self.router.respond(to: HTTPRequest(head: head), context: context) }
    }

    @Test func queryParameters_decodePercentAndPlus() {
        let query = QueryParameters(parsing: "q=a+b%26c&empty&x=1&x=2&bad=%G1")
        #expect(query["q"] == "a b&c")
        #expect(query["empty"] == "")
        #expect(query.values(for: "x") == ["1", "2"])
        #expect(query["bad"] == nil)
    }

    /// The byte-offset parser's edges: escapes cut short at the end, escapes that decode to
    /// bytes that are not UTF-8, multi-byte text, empty names and pairs, `=` inside a value,
    /// and a query that is a slice of a longer target (its bytes do not start at offset 0).
    @Test func queryParameters_edges() {
        let target = "/v1/sync?a=%4&b=%&c=%FF&d=\u{e9}%C3%A9+x&&=v&e==b=&f%3D=1&g"
        let query = QueryParameters(parsing: target[target.index(after: target.firstIndex(of: "?")!)...])
        #expect(query.items.map(\.name) == ["d", "", "e", "f=", "g"])
        #expect(query["d"] == "\u{e9}\u{e9} x")
        #expect(query[""] == "v")
        #expect(query["e"] == "=b=")
        #expect(query["f="] == "1")
        #expect(query["g"] == "")
        #expect(QueryParameters(parsing: "").items.isEmpty && QueryParameters(parsing: nil).items.isEmpty)
    }
}
