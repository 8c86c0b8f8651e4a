import HTTP1
import HTTPServer
import Testing

/// A route group declares the wire shape of its errors; the resolved route carries it to the
/// one renderer, for matched routes and for requests under the group's first path segment that
/// match nothing.
@Suite struct ErrorStyleTests {
    static let rest = ErrorStyle("postgrest")

    static let router: Router = {
        var router = Router()
        router.group(auth: .required) { api in
            api.get("/v1/tasks") { _, _ in .response(HTTPResponse(status: .ok)) }
        }
        router.group(auth: .anonymous, errorStyle: rest) { group in
            group.get("/rest/v1/tasks") { _, _ in .response(HTTPResponse(status: .ok)) }
            // A nested group without a style keeps its parent's.
            group.group(auth: .required) { inner in
                inner.get("/rest/v1/notes") { _, _ in .response(HTTPResponse(status: .ok)) }
            }
        }
        return router
    }()

    @Test(arguments: [
        ("GET", "/v1/tasks", "contract"), ("GET", "/v1/unknown", "contract"), ("GET", "/healthz", "contract"),
        ("GET", "/rest/v1/tasks", "postgrest"), ("GET", "/rest/v1/notes", "postgrest"),
        ("GET", "/rest/v1/unknown", "postgrest"), ("POST", "/rest/v1/tasks", "postgrest"),
    ])
    func resolvedRouteCarriesItsGroupsErrorStyle(method: String, path: String, style: String) {
        let head = HTTPRequestHead(method: HTTPMethod(method), target: path, version: .http11, headers: ["Host": "x"])
        #expect(Self.router.resolve(HTTPRequest(head: head)).errorStyle.name == style)
    }
}
