import HTTP1
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test func subscriptLookupIgnoresNameCase() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain"]
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers["Content-Length"] == nil)
    }

    @Test func valuesForRepeatedNameKeepOrder() {
        let headers = HTTPHeaders([("X-A", "1"), ("x-b", "2"), ("x-a", "3")])
        #expect(headers.values(for: "X-A") == ["1", "3"])
        #expect(headers["x-a"] == "1")
        #expect(headers.count == 3)
    }

    @Test func setReplacesEveryOccurrence() {
        var headers = HTTPHeaders([("X-A", "1"), ("x-a", "2"), ("Y", "3")])
        headers.set(name: "X-a", value: "9")
        #expect(headers.values(for: "x-a") == ["9"])
        #expect(headers.fields.map(\.name) == ["Y", "X-a"])
    }

    @Test func removeDeletesAllOccurrences() {
        var headers = HTTPHeaders([("X-A", "1"), ("x-a", "2")])
        headers.remove(name: "X-A")
        #expect(headers.count == 0)
        #expect(!headers.contains("x-a"))
    }

    @Test func containsTokenMatchesListElementsCaseInsensitively() {
        let headers = HTTPHeaders([("Connection", "keep-alive, Upgrade"), ("Connection", " CLOSE ")])
        #expect(headers.containsToken("upgrade", in: "connection"))
        #expect(headers.containsToken("close", in: "Connection"))
        #expect(!headers.containsToken("keep", in: "Connection"))
    }

    @Test func namesOfDifferentLengthNeverMatch() {
        let headers: HTTPHeaders = ["Host": "a"]
        #expect(!headers.contains("Hos"))
        #expect(!headers.contains("Hostt"))
    }
}
