import HTTP1
@testable import HTTPServer
import Testing

/// Streamed responses in the connection state machine: chunk framing for HTTP/1.1, until-close
/// for HTTP/1.0, no body for HEAD, keep-alive after a complete stream, close without the last
/// chunk after a cut one, and pipelined requests held until the stream ends.
@Suite struct ConnectionStreamingTests {
    typealias Helpers = ConnectionStateMachineTests

    @Test func http11StreamIsChunkedAndKeepsTheConnectionForTheNextRequest() throws {
        let env = Helpers.environment()
        var machine = ConnectionStateMachine(environment: env)
        let two = "GET /a HTTP/1.1\r\nHost: x\r\nX-Request-Id: r1\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(Helpers.feed(&machine, two, env)?.request.head.target == "/a")
        machine.beginStream(HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Content-Length": "9"]), env: env)
        machine.appendStreamBody(Array("[1,".utf8), env: env)
        machine.appendStreamBody(Array("2]".utf8), env: env)
        let head = Helpers.output(&machine)
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.contains("Transfer-Encoding: chunked\r\n"))
        #expect(!head.contains("Content-Length"))
        #expect(head.hasSuffix("\r\n\r\n3\r\n[1,\r\n2\r\n2]\r\n"))
        #expect(machine.phase == .awaitingResponse) // the pipelined request waits
        let next = machine.finishStream(complete: true, env: env)
        #expect(Helpers.output(&machine) == "0\r\n\r\n")
        #expect(next?.request.head.target == "/b")
    }

    @Test func cutStreamClosesWithoutTheLastChunk() throws {
        let env = Helpers.environment()
        var machine = ConnectionStateMachine(environment: env)
        _ = Helpers.feed(&machine, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", env)
        machine.beginStream(HTTPResponse(status: .ok), env: env)
        machine.appendStreamBody(Array("[1".utf8), env: env)
        _ = Helpers.output(&machine)
        #expect(machine.finishStream(complete: false, env: env) == nil)
        #expect(!machine.hasPendingOutput)
        #expect(machine.phase == .closing)
    }

    @Test func http10StreamEndsWithTheConnectionAndHeadSendsNoBody() throws {
        let env = Helpers.environment()
        var old = ConnectionStateMachine(environment: env)
        _ = Helpers.feed(&old, "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", env)
        old.beginStream(HTTPResponse(status: .ok), env: env)
        old.appendStreamBody(Array("[]".utf8), env: env)
        let text = Helpers.output(&old)
        #expect(text.contains("Connection: close\r\n") && !text.contains("chunked") && text.hasSuffix("\r\n\r\n[]"))
        _ = old.finishStream(complete: true, env: env)
        #expect(old.phase == .closing && !old.hasPendingOutput)

        var head = ConnectionStateMachine(environment: env)
        _ = Helpers.feed(&head, "HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n", env)
        head.beginStream(HTTPResponse(status: .ok), env: env)
        head.appendStreamBody(Array("[]".utf8), env: env)
        _ = head.finishStream(complete: true, env: env)
        let headText = Helpers.output(&head)
        #expect(headText.contains("Transfer-Encoding: chunked\r\n") && headText.hasSuffix("\r\n\r\n"))
        #expect(!headText.contains("[]") && !headText.hasSuffix("0\r\n\r\n"))
        #expect(head.phase == .readingHead)
    }
}
