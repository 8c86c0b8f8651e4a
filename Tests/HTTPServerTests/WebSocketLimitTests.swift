import HTTP1
@testable import HTTPServer
import Synchronization
import Testing
import Foundation

@Suite("WebSocket violations and limits")
struct WebSocketLimitTests {
    /// Upgrades, sends `bytes`, and returns the close code the server answers with (after
    /// which it must close the TCP connection).
    private func closeCode(after bytes: [UInt8], _ adjust: (inout WebSocketConfiguration) -> Void = { _ in }) throws -> UInt16? {
        let handler = EchoWebSocketHandler()
        var code: UInt16?
        try withWebSocketServer(handler, adjust) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try? client.send(bytes)
            var frame = try client.readNonPing()
            while frame.opcode != 0x8 { frame = try client.readNonPing() } // echoes before the violation
            code = frame.closeCode
            #expect(client.waitForEOF())
        }
        #expect(handler.waitUntilClosed().count == 1)
        return code
    }

    @Test func unmaskedFrameIs1002() throws {
        #expect(try closeCode(after: [0x81, 0x02, 0x68, 0x69]) == 1002)
    }

    @Test func reservedBitsAre1002() throws {
        #expect(try closeCode(after: WebSocketFrameEncoder.frame(.text, payload: [0x61], mask: (1, 2, 3, 4), rsv: 4)) == 1002)
    }

    @Test func invalidUTF8Is1007() throws {
        #expect(try closeCode(after: WebSocketTestClient.masked(.text, [0x61, 0xED, 0xA0, 0x80])) == 1007)
    }

    @Test func aHandlerWithoutBinaryMessagesClosesWith1003() throws {
        let handler = TextOnlyWebSocketHandler()
        var router = standardRouter()
        router.get("/ws") { _, _ in .webSocket(handler) }
        try withServer(testConfiguration { $0.idleTimeout = .seconds(5) }, router: router) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.send(WebSocketTestClient.masked(.binary, [1, 2, 3]))
            let frame = try client.readNonPing()
            #expect(frame.opcode == 0x8 && frame.closeCode == 1003)
            try client.sendClose(1003)
            #expect(client.waitForEOF())
        }
    }

    @Test func oversizedFrameAndMessageAre1009() throws {
        let frame = WebSocketTestClient.masked(.text, [UInt8](repeating: 0x61, count: 2000))
        #expect(try closeCode(after: frame, { $0.maxFrameBytes = 1000 }) == 1009)
        let fragments = WebSocketTestClient.masked(.text, [UInt8](repeating: 0x61, count: 600), fin: false)
            + WebSocketTestClient.masked(.continuation, [UInt8](repeating: 0x61, count: 600))
        #expect(try closeCode(after: fragments, { $0.maxMessageBytes = 1000 }) == 1009)
        // Binary messages obey the same limits.
        let binaryFrame = WebSocketTestClient.masked(.binary, [UInt8](repeating: 0xFF, count: 2000))
        #expect(try closeCode(after: binaryFrame, { $0.maxFrameBytes = 1000 }) == 1009)
        let binaryFragments = WebSocketTestClient.masked(.binary, [UInt8](repeating: 0xFF, count: 600), fin: false)
            + WebSocketTestClient.masked(.continuation, [UInt8](repeating: 0xFF, count: 600))
        #expect(try closeCode(after: binaryFragments, { $0.maxMessageBytes = 1000 }) == 1009)
    }

    @Test func tooManyFramesPerSecondIs1008() throws {
        var burst: [UInt8] = []
        for _ in 0..<200 { burst += WebSocketTestClient.masked(.pong, []) }
        #expect(try closeCode(after: burst, { $0.maxFramesPerSecond = 50 }) == 1008)
    }

    /// `flood` sends text, `flood-binary` binary messages: both count against one bound.
    @Test(arguments: ["flood", "flood-binary"])
    func slowReaderIsClosedWith1008AndServerMemoryStaysBounded(command: String) throws {
        let handler = EchoWebSocketHandler()
        let bound = 256 * 1024
        try withWebSocketServer(handler, { $0.sendQueueBytes = bound }) { server, port in
            // A small receive buffer: the client takes little until it starts reading.
            let client = try WebSocketTestClient(port: port, receiveBuffer: 16 * 1024)
            #expect(try client.upgrade().status == 101)
            try client.sendText(command)
            // The handler sends 1 KiB messages until `send` refuses; without a bound it would
            // queue all 64 MiB.
            let deadline = ContinuousClock.now + .seconds(10)
            while handler.record.withLock({ !$0.floodRefused && $0.floodAccepted == 0 }) && ContinuousClock.now < deadline {
                usleepMillis(10)
            }
            let (accepted, refused) = handler.record.withLock { ($0.floodAccepted, $0.floodRefused) }
            #expect(refused)
            // The bound plus what the kernel's socket buffers took (generously).
            #expect(accepted < bound + 8 << 20, "accepted \(accepted)")
            // What the server itself held, as /metrics reports it: never past the bound and a
            // close frame, filled to within one message of it, one overflow.
            let held = server.metrics
            #expect(held.webSocketSendQueuePeakBytes <= bound + 127, "peak \(held.webSocketSendQueuePeakBytes)")
            #expect(held.webSocketSendQueuePeakBytes > bound - 2048, "peak \(held.webSocketSendQueuePeakBytes)")
            #expect(held.webSocketSendQueueOverflows == 1)
            // Reading now: the queued messages, then the 1008 close.
            var frame = try client.readFrame()
            var messages = 0
            while frame.opcode == (command == "flood" ? 0x1 : 0x2) {
                messages += 1
                frame = try client.readFrame()
            }
            #expect(frame.opcode == 0x8 && frame.closeCode == 1008)
            #expect(messages * 1024 <= accepted)
            try client.sendClose(1008)
            #expect(client.waitForEOF())
            #expect(server.metrics.openWebSockets == 0) // over before the server's FIN went out
            #expect(server.metrics.webSocketSendQueueBytes == 0)
        }
        #expect(handler.waitUntilClosed() == [.policyViolation])
    }
}

/// A handler that holds each message until the test opens the gate.
final class GatedWebSocketHandler: WebSocketHandler {
    let gate = DispatchSemaphore(value: 0)
    let received = Atomic<Int>(0)
    let closedCount = Atomic<Int>(0)

    func opened(_ outbound: any WebSocketOutbound) {}
    func received(text: String) {
        gate.wait()
        received.add(1, ordering: .relaxed)
    }
    func received(binary: [UInt8]) {}
    func closed(code: WebSocketCloseCode?) { closedCount.add(1, ordering: .relaxed) }
}

/// A handler whose protocol has no binary messages: it refuses them as the seam asks (1003).
final class TextOnlyWebSocketHandler: WebSocketHandler {
    let outbound = Mutex<(any WebSocketOutbound)?>(nil)

    func opened(_ outbound: any WebSocketOutbound) { self.outbound.withLock { $0 = outbound } }
    func received(text: String) {}
    func received(binary: [UInt8]) {
        outbound.withLock { $0 }?.close(code: .unsupportedData, reason: "binary messages are not supported")
    }
    func closed(code: WebSocketCloseCode?) {}
}

@Suite("WebSocket inbound backpressure")
struct WebSocketBackpressureTests {
    @Test func aHandlerThatFallsBehindStopsTheServerReading() throws {
        let handler = GatedWebSocketHandler()
        var router = standardRouter()
        router.get("/ws") { _, _ in .webSocket(handler) }
        let configuration = testConfiguration {
            $0.idleTimeout = .seconds(10)
            $0.webSocket.maxMessageBytes = 64 * 1024
            $0.webSocket.maxFramesPerSecond = 100_000
            $0.webSocket.idleTimeout = .seconds(30)
            $0.webSocket.pingInterval = .seconds(30)
        }
        let messageCount = 1024 // 16 MiB in all: far more than socket buffers and the 64 KiB pause bound
        try withServer(configuration, router: router) { _, port in
            let client = try WebSocketTestClient(port: port, readTimeoutSeconds: 1)
            #expect(try client.upgrade().status == 101)
            let message = WebSocketTestClient.masked(.text, [UInt8](repeating: 0x61, count: 16 * 1024))
            var sent = 0
            // The handler takes nothing: the server must stop reading, so the client's sends
            // block (and time out after 1 s) long before all 16 MiB are out.
            while sent < messageCount, (try? client.send(message)) != nil { sent += 1 }
            #expect(sent < messageCount / 2, "sent \(sent) messages while the handler took none")
            // Open the gate: everything sent is handled, and reading resumes.
            for _ in 0..<messageCount { handler.gate.signal() }
            let deadline = ContinuousClock.now + .seconds(10)
            while handler.received.load(ordering: .relaxed) < sent && ContinuousClock.now < deadline { usleepMillis(10) }
            #expect(handler.received.load(ordering: .relaxed) >= sent)
        }
    }
}
