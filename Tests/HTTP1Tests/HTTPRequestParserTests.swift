import HTTP1
import Testing

@Suite("HTTPRequestParser API")
struct HTTPRequestParserTests {
    static let get = Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8)

    @Test func completeReportsOnlyTheFirstPipelinedRequestConsumed() {
        var parser = HTTPRequestParser()
        let input = Self.get + Self.get
        guard case .complete(let request, let consumed) = parser.parse(input) else {
            Issue.record("expected complete"); return
        }
        #expect(consumed == Self.get.count)
        #expect(request.path == "/a")
        #expect(parser.isAtRequestBoundary)
        guard case .complete(_, let second) = parser.parse(input[consumed...]) else {
            Issue.record("expected second complete"); return
        }
        #expect(second == Self.get.count)
    }

    @Test func headCompleteStopsBeforeBodyBytes() {
        var parser = HTTPRequestParser()
        let head = Array("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8)
        guard case .headComplete(let parsedHead, let consumed) = parser.parse(head + Array("abc".utf8)) else {
            Issue.record("expected headComplete"); return
        }
        #expect(consumed == head.count)
        #expect(parsedHead.expectsContinue)
        #expect(!parser.isAtRequestBoundary)
        #expect(parser.parse(Array("ab".utf8)) == .needMore(consumed: 2))
        guard case .complete(let request, 1) = parser.parse(Array("c".utf8)) else {
            Issue.record("expected complete"); return
        }
        #expect(request.body == Array("abc".utf8))
    }

    @Test func failureIsSticky() {
        var parser = HTTPRequestParser()
        #expect(parser.parse(Array("GET / HTTP/1.1\n".utf8)) == .failure(.bareLineFeed))
        #expect(parser.parse(Self.get) == .failure(.bareLineFeed))
    }

    @Test func emptyInputNeedsMore() {
        var parser = HTTPRequestParser()
        #expect(parser.parse([UInt8]()) == .needMore(consumed: 0))
        #expect(parser.isAtRequestBoundary)
    }

    @Test func unsafeBufferOverloadMatchesArrayOverload() {
        var viaArray = HTTPRequestParser()
        var viaBuffer = HTTPRequestParser()
        let expected = viaArray.parse(Self.get)
        let actual = Self.get.withUnsafeBytes { viaBuffer.parse($0) }
        #expect(actual == expected)
    }

    @Test func slowRequestLineIsConsumedAsItArrives() {
        // A line dribbled byte by byte is buffered inside the parser, never re-presented.
        var parser = HTTPRequestParser()
        for byte in Self.get.dropLast() {
            #expect(parser.parse([byte]) == .needMore(consumed: 1))
        }
        guard case .complete = parser.parse([Self.get[Self.get.count - 1]]) else {
            Issue.record("expected complete"); return
        }
    }

    @Test func oversizedRequestLineFailsBeforeLineEnds() {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxRequestLineBytes: 8))
        #expect(parser.parse(Array("GET /aaaaaaaaaaaa".utf8)) == .failure(.requestLineTooLong))
    }

    @Test func defaultLimitRequestLineOneByteOverFails() {
        var parser = HTTPRequestParser()
        let target = "/" + String(repeating: "a", count: 8 * 1024 - "GET / HTTP/1.1".count + 1)
        let result = parser.parse(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(result == .failure(.requestLineTooLong))
    }

    @Test func defaultLimitRequestLineExactlyAtLimitParses() {
        var parser = HTTPRequestParser()
        let target = "/" + String(repeating: "a", count: 8 * 1024 - "GET / HTTP/1.1".count)
        guard case .complete(let request, _) = parser.parse(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) else {
            Issue.record("expected complete"); return
        }
        #expect(request.head.target.utf8.count + "GET  HTTP/1.1".count == 8 * 1024)
    }

    @Test func unboundedLimitsDoNotOverflow() {
        let huge = HTTPParserLimits(maxRequestLineBytes: .max, maxHeaderBytes: .max, maxHeaderCount: .max, maxBodyBytes: .max)
        var parser = HTTPRequestParser(limits: huge)
        let input = Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7FFFFFFFFFFFFFFF\r\nab".utf8)
        guard case .headComplete(_, let consumed) = parser.parse(input) else {
            Issue.record("expected headComplete"); return
        }
        #expect(parser.parse(input[consumed...]) == .needMore(consumed: input.count - consumed))
    }

    @Test func zeroLimitsRejectEverything() {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxRequestLineBytes: 0, maxHeaderBytes: 0, maxHeaderCount: 0, maxBodyBytes: 0))
        #expect(parser.parse(Array("G".utf8)) == .failure(.requestLineTooLong))
    }

    @Test("Errors map to their status", arguments: [
        (HTTPParseError.requestLineTooLong, 414), (.headerSectionTooLarge, 431), (.tooManyHeaders, 431),
        (.bodyTooLarge, 413), (.unsupportedTransferEncoding, 501), (.unsupportedVersion, 505),
        (.lengthRequired, 411), (.duplicateContentLength, 400), (.obsoleteLineFolding, 400),
    ])
    func errorStatusMapping(error: HTTPParseError, code: Int) {
        #expect(error.status.code == code)
    }
}
