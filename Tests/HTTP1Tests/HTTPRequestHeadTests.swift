import HTTP1
import Testing

@Suite("HTTPRequestHead semantics")
struct HTTPRequestHeadTests {
    static func head(_ version: HTTPVersion, _ fields: [(String, String)], target: String = "/") -> HTTPRequestHead {
        HTTPRequestHead(method: .get, target: target, version: version, headers: HTTPHeaders(fields))
    }

    @Test func http11KeepsAliveByDefault() {
        #expect(Self.head(.http11, []).wantsKeepAlive)
    }

    @Test func http11ConnectionCloseEndsConnection() {
        #expect(!Self.head(.http11, [("Connection", "close")]).wantsKeepAlive)
        #expect(!Self.head(.http11, [("connection", "Upgrade, Close")]).wantsKeepAlive)
    }

    @Test func http10ClosesByDefault() {
        #expect(!Self.head(.http10, []).wantsKeepAlive)
    }

    @Test func http10KeepAliveTokenKeepsConnection() {
        #expect(Self.head(.http10, [("Connection", "Keep-Alive")]).wantsKeepAlive)
    }

    @Test func expectContinueIsCaseInsensitive() {
        #expect(Self.head(.http11, [("Expect", "100-Continue")]).expectsContinue)
        #expect(!Self.head(.http11, [("Expect", "200-ok")]).expectsContinue)
        #expect(!Self.head(.http11, []).expectsContinue)
    }

    @Test func pathAndQuerySplitAtFirstQuestionMark() {
        let head = Self.head(.http11, [], target: "/a/b?x=1?y")
        #expect(head.path == "/a/b")
        #expect(head.query == "x=1?y")
        #expect(Self.head(.http11, [], target: "/a").query == nil)
    }

    @Test(arguments: [
        ("http://example.com/a/b?x=1", "/a/b", "x=1"),
        ("HTTP://Example.com:8080/v1/users/%2F", "/v1/users/%2F", nil),
        ("https://example.com", "/", nil),
        ("http://example.com?x=1", "/", "x=1"),
        ("http://[::1]:80//a", "//a", nil),
    ] as [(String, Substring, Substring?)])
    func absoluteFormPathDropsSchemeAndAuthority(target: String, path: Substring, query: Substring?) {
        let head = Self.head(.http11, [], target: target)
        #expect(head.path == path)
        #expect(head.query == query)
    }

    @Test func asteriskFormPathIsTheAsterisk() {
        #expect(Self.head(.http11, [], target: "*").path == "*")
    }
}
