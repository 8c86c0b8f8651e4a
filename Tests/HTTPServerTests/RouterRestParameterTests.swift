import HTTP1
@testable import HTTPServer
import Testing

/// `{name...}` as a pattern's last segment captures the rest of the path (Storage object names
/// with folders), after literals and one-segment parameters have had their chance.
@Suite struct RouterRestParameterTests {
    func router() -> Router {
        var router = Router()
        let ok: RequestHandler = { _, _ in .response(HTTPResponse(status: .ok)) }
        router.get("/files/{bucket}/{path...}", handler: ok)
        router.get("/files/public/{bucket}/{path...}", handler: ok)
        router.get("/files/{bucket}/info", handler: ok)
        return router
    }

    func resolve(_ target: String) -> ResolvedRoute {
        router().resolve(HTTPRequest(head: HTTPRequestHead(method: .get, target: target, version: .http11, headers: [:])))
    }

    @Test(arguments: [
        ("/files/avatars/a.png", "/files/{bucket}/{path...}", "a.png"),
        ("/files/avatars/a/b/c.png", "/files/{bucket}/{path...}", "a/b/c.png"),
        ("/files/avatars/a%2Fb%20c.png", "/files/{bucket}/{path...}", "a/b c.png"),
        ("/files/avatars/a//b/", "/files/{bucket}/{path...}", "a//b/"),
        ("/files/public/avatars/x/y.png", "/files/public/{bucket}/{path...}", "x/y.png"),
        ("/files/avatars/info", "/files/{bucket}/info", nil),
    ] as [(String, String, String?)])
    func restOfPathIsCaptured(target: String, pattern: String, path: String?) {
        let resolved = resolve(target)
        #expect(resolved.pattern == pattern)
        #expect(resolved.parameters["path"] == path)
    }

    @Test func theRestMustHoldAtLeastOneSegment() {
        #expect(resolve("/files/avatars").pattern == nil)
    }
}
