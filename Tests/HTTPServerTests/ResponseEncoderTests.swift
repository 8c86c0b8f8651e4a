import HTTP1
import Testing

@Suite struct ResponseEncoderTests {
    @Test func encode_okWithBody_writesStatusHeadersLengthAndBody() {
        let response = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: Array("hi".utf8))
        let text = String(decoding: HTTPResponseEncoder.encode(response), as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi")
    }

    @Test func encode_head_keepsContentLengthButOmitsBody() {
        let response = HTTPResponse(status: .ok, body: Array("hello".utf8))
        let text = String(decoding: HTTPResponseEncoder.encode(response, omitBody: true), as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
    }

    @Test(arguments: [204, 304, 100])
    func encode_statusWithoutBody_sendsNoBody(code: Int) {
        let response = HTTPResponse(status: HTTPStatus(code: code, reason: "X"), body: Array("ignored".utf8))
        let text = String(decoding: HTTPResponseEncoder.encode(response), as: UTF8.self)
        #expect(text == "HTTP/1.1 \(code) X\r\n\r\n")
    }

    @Test func encode_explicitContentLength_isNotDuplicated() {
        let response = HTTPResponse(status: .ok, headers: ["Content-Length": "10"], body: [])
        let text = String(decoding: HTTPResponseEncoder.encode(response, omitBody: true), as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
    }

    @Test func encode_headerValueWithCRLF_cannotSplitResponse() {
        let response = HTTPResponse(status: .ok, headers: ["X-Echo": "a\r\nSet-Cookie: x=1"], body: [])
        let text = String(decoding: HTTPResponseEncoder.encode(response), as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK\r\nX-Echo: a  Set-Cookie: x=1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_798_761_599, "Thu, 31 Dec 2026 23:59:59 GMT"),
        (4_107_542_400, "Mon, 01 Mar 2100 00:00:00 GMT"),
    ])
    func imfFixdate_knownInstants_formatPerRFC9110(seconds: Int, expected: String) {
        #expect(HTTPResponseEncoder.imfFixdate(secondsSince1970: seconds) == expected)
    }
}
