import HTTP1
@testable import HTTPServer
import Testing

/// The connection protocol logic without sockets: a fixed clock and `Date`, bytes in, bytes out.
@Suite struct ConnectionStateMachineTests {
    static func environment() -> ConnectionEnvironment {
        let env = ConnectionEnvironment(
            timeouts: .init(header: 1_000, body: 2_000, idle: 5_000, write: 3_000, linger: 500),
            limits: HTTPParserLimits(maxBodyBytes: 16), fixedDate: "Sun, 06 Nov 1994 08:49:37 GMT", seed: 1)
        env.now = 10_000
        return env
    }

    static func feed(_ machine: inout ConnectionStateMachine, _ text: String,
                     _ env: ConnectionEnvironment) -> ConnectionStateMachine.Dispatch? {
        Array(text.utf8).withUnsafeBytes { machine.receive($0, env: env) }
    }

    static func output(_ machine: inout ConnectionStateMachine) -> String {
        let text = machine.withPendingOutput { String(decoding: $0, as: UTF8.self) }
        let count = machine.withPendingOutput { $0.count }
        machine.didWrite(count)
        return text
    }

    static let request = "POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-Id: r1\r\nContent-Length: 3\r\n\r\nabc"

    @Test func request_splitAtEveryOffset_dispatchesOnceWithSameRequest() throws {
        let bytes = Array(Self.request.utf8)
        for split in 0...bytes.count {
            let env = Self.environment()
            var machine = ConnectionStateMachine(environment: env)
            let first = bytes[..<split].withUnsafeBytes { machine.receive($0, env: env) }
            let second = bytes[split...].withUnsafeBytes { machine.receive($0, env: env) }
            let dispatches = [first, second].compactMap { $0 }
            #expect(dispatches.count == 1, "split at \(split)")
            #expect(dispatches.first?.request.body == Array("abc".utf8))
            #expect(dispatches.first?.requestID == "r1")
        }
    }

    @Test func respond_encodesWithDateRequestIDAndKeepsAlive() throws {
        let env = Self.environment()
        var machine = ConnectionStateMachine(environment: env)
        #expect(Self.feed(&machine, Self.request, env) != nil)
        #expect(machine.phase == .awaitingResponse)
        _ = machine.respond(HTTPResponse(status: .ok, body: Array("hi".utf8)), env: env)
        #expect(Self.output(&machine) == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nX-Request-Id: r1\r\n"
                + "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nContent-Length: 2\r\n\r\nhi")
        #expect(machine.phase == .readingHead)
        #expect(machine.readDeadline == 15_000) // idle timeout
    }

    @Test func pipelinedRequests_secondDispatchedOnlyAfterFirstResponse() throws {
        let env = Self.environment()
        var machine = ConnectionStateMachine(environment: env)
        let two = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(Self.feed(&machine, two, env)?.request.head.target == "/a")
        let next = machine.respond(HTTPResponse(), env: env)
        #expect(next?.request.head.target == "/b")
    }

    @Test func pipelinedRequests_clientNotReading_pauseParsingUntilOutputDrains() throws {
        let env = Self.environment()
        var machine = ConnectionStateMachine(environment: env)
        let two = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(Self.feed(&machine, two, env) != nil)
        let big = HTTPResponse(body: [UInt8](repeating: 0x61, count: 70_000))
        #expect(machine.respond(big, env: env) == nil)
        #expect(machine.parsingPaused)
        #expect(machine.resumeParsingIfPossible(env: env) == nil)
        _ = Self.output(&machine)
        #expect(machine.resumeParsingIfPossible(env: env)?.request.head.target == "/b")
    }

    @Test func expectContinue_withoutBody_queues100_withBodyPresent_doesNot() throws {
        let env = Self.environment()
        var machine = ConnectionStateMachine(environment: env)
        let head = "POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"
        #expect(Self.feed(&machine, head, env) == nil)
        #expect(Self.output(&machine) == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(Self.feed(&machine, "abc", env) != nil)

        var eager = ConnectionStateMachine(environment: env)
        #expect(Self.feed(&eager, head + "abc", env) != nil)
        #expect(!eager.hasPendingOutput)
    }

    @Test func partialHead_pastHeaderDeadline_queues408AndCloses() throws {
        let env = Self.environment()
        var machine = ConnectionStateMachine(environment: env)
        #expect(Self.feed(&machine, "GET / HTTP/1.1\r\nHo", env) == nil)
        env.now += 999
        #expect(machine.tick(env: env) == .nothing)
        env.now += 1
        #expect(machine.tick(env: env) == .respondAndClose)
        let text = Self.output(&machine)
        #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        #expect(text.hasSuffix(#"{"code":"request_timeout","message":"The request was not received in time.","details":null,"hint":null}"#))
        #expect(machine.readyToLinger)
    }

    @Test func silentConnection_pastHeaderDeadline_closesWithoutResponse() {
        let env = Self.environment()
        var machine = ConnectionStateMachine(environment: env)
        env.now += 1_000
        #expect(machine.tick(env: env) == .closeNow)
        #expect(!machine.hasPendingOutput)
    }

    @Test func parseError_queuesJSONErrorAndDiscardsLaterInput() {
        let env = Self.environment()
        var machine = ConnectionStateMachine(environment: env)
        #expect(Self.feed(&machine, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n", env) == nil)
        let text = Self.output(&machine)
        #expect(text.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"))
        #expect(Self.feed(&machine, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", env) == nil)
        #expect(machine.phase == .closing)
    }

    @Test func rejecting_queues503WithRetryAfter() {
        let env = Self.environment()
        var machine = ConnectionStateMachine.rejecting(environment: env)
        let text = Self.output(&machine)
        #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(text.contains("Retry-After: 1\r\n"))
        #expect(machine.readyToLinger)
    }
}
