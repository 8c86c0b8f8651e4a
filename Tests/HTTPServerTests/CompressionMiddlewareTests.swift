import Foundation
import HTTP1
@testable import HTTPServer
import Testing

/// Which responses `CompressionMiddleware` gzips; the bytes themselves are checked against
/// `gunzip` over real sockets in `EndToEndTests/GzipTests`.
@Suite struct CompressionMiddlewareTests {
    static let json = Array(("[" + Array(repeating: "{\"title\":\"Call the buyer\"}", count: 100).joined(separator: ",") + "]").utf8)

    static func encode(_ response: HTTPResponse, accepts: Bool = true) -> HTTPResponse {
        CompressionMiddleware.encode(response, acceptsGzip: accepts, minimumBytes: 1024, level: 4)
    }

    @Test func largeJSONIsCompressedWithVary() {
        let response = Self.encode(HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: Self.json))
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(response.headers["Vary"] == "Accept-Encoding")
        #expect(response.body.count < Self.json.count / 5)
        #expect(Array(response.body.prefix(2)) == [0x1F, 0x8B])  // gzip magic
    }

    @Test func refusedGzipStillSaysVary() {
        let response = Self.encode(HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: Self.json),
                                   accepts: false)
        #expect(response.headers["Content-Encoding"] == nil)
        #expect(response.headers["Vary"] == "Accept-Encoding")
        #expect(response.body == Self.json)
    }

    @Test(arguments: [
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: Array(Self.json.prefix(1023))),
        HTTPResponse(status: .noContent, headers: ["Content-Type": "application/json"], body: Self.json),
        HTTPResponse(status: HTTPStatus(code: 304, reason: "Not Modified"), headers: ["Content-Type": "application/json"], body: Self.json),
        HTTPResponse(status: .ok, headers: ["Content-Type": "image/png"], body: Self.json),
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "ETag": "\"3\""], body: Self.json),
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Content-Encoding": "br"], body: Self.json),
    ])
    func otherResponsesAreLeftAlone(_ original: HTTPResponse) {
        let response = Self.encode(original)
        #expect(response.body == original.body)
        #expect(response.headers.values(for: "Content-Encoding") == original.headers.values(for: "Content-Encoding"))
        #expect(!response.headers.contains("Vary"))
    }

    @Test func jsonWithParametersCounts() {
        #expect(CompressionMiddleware.isJSON("application/json; charset=utf-8"))
        #expect(CompressionMiddleware.isJSON("Application/JSON"))
        #expect(!CompressionMiddleware.isJSON("application/jsonx"))
        #expect(!CompressionMiddleware.isJSON(nil))
    }
}
