import Glibc
import HTTP1
@testable import HTTPServer
import Testing

@Suite("WebSocket close handshake and timers")
struct WebSocketCloseTests {
    @Test func clientClosesServerEchoesTheCodeThenClosesTCP() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { server, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.sendClose(3001, reason: "done")
            let echo = try client.readNonPing()
            #expect(echo.opcode == 0x8 && echo.closeCode == 3001)
            #expect(client.waitForEOF())
            #expect(handler.waitUntilClosed() == [WebSocketCloseCode(rawValue: 3001)])
            #expect(server.metrics.openWebSockets == 0)
            // The lingering socket closes once the client closes its side: nothing leaks.
            shutdown(client.fd, Int32(SHUT_WR))
            let deadline = ContinuousClock.now + .seconds(3)
            while server.metrics.openConnections > 0 && ContinuousClock.now < deadline { usleepMillis(10) }
            #expect(server.metrics.openConnections == 0)
            #expect(server.metrics.inFlightRequests == 0)
        }
    }

    @Test func aPeerThatVanishesIsReportedWithoutACode() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { server, port in
            var client: WebSocketTestClient? = try WebSocketTestClient(port: port)
            #expect(try client?.upgrade().status == 101)
            try client?.sendText("hi")
            #expect(try client?.readNonPing().text == "hi")
            client = nil // TCP close, no close frame
            #expect(handler.waitUntilClosed() == [nil])
            let deadline = ContinuousClock.now + .seconds(3)
            while server.metrics.openConnections > 0 && ContinuousClock.now < deadline { usleepMillis(10) }
            #expect(server.metrics.openWebSockets == 0 && server.metrics.openConnections == 0)
        }
    }

    @Test func openAndCloseAreLoggedWithTheUpgradeRequestsID() throws {
        let recorder = LogRecorder()
        let handler = EchoWebSocketHandler()
        var router = standardRouter()
        router.get("/ws") { _, _ in .webSocket(handler) }
        let server = HTTPServer(configuration: testConfiguration(), responder: router, logger: recorder.logger)
        try server.start()
        defer {
            server.shutdown(deadline: .milliseconds(500))
            server.waitUntilStopped()
        }
        let client = try WebSocketTestClient(port: server.boundPort)
        try client.send(Array(WebSocketTestClient.handshake(extra: "X-Request-Id: ws-req-1\r\n").utf8))
        #expect(try client.readHead().status == 101)
        try client.sendClose(1000)
        #expect(try client.readNonPing().closeCode == 1000)
        #expect(handler.waitUntilClosed() == [.normal])
        let entries = recorder.entries.withLock { $0 }.filter { $0.message.hasPrefix("websocket") }
        #expect(entries.map(\.message) == ["websocket opened", "websocket closed"])
        #expect(entries.allSatisfy { $0.metadata["request_id"] == "ws-req-1" && $0.metadata["path"] == "/ws" })
        #expect(entries.last?.metadata["close_code"] == "1000")
    }

    @Test func emptyCloseIsAnsweredEmpty() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.sendClose(nil)
            let echo = try client.readNonPing()
            #expect(echo.opcode == 0x8 && echo.payload.isEmpty)
            #expect(client.waitForEOF())
            #expect(handler.waitUntilClosed() == [WebSocketCloseCode(rawValue: 1005)])
        }
    }

    @Test func serverClosesClientAnswersThenTCPCloses() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.sendText("close-me")
            let close = try client.readNonPing()
            #expect(close.opcode == 0x8 && close.closeCode == 1000 && close.closeReason == "bye")
            try client.sendClose(1000)
            #expect(client.waitForEOF())
            #expect(handler.waitUntilClosed() == [.normal])
        }
    }

    @Test func closeHandshakeTimeoutDropsASilentClient() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler, { $0.closeTimeout = .seconds(2) }) { server, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.sendText("close-me")
            #expect(try client.readNonPing().closeCode == 1000)
            // The server waits for the client's close (state, not a measured wait: the client's
            // clock starts late by however long it took to read the frame)...
            #expect(server.metrics.openWebSockets == 1)
            #expect(client.waitForEOF()) // ...never answered: dropped after the close timeout
            #expect(handler.waitUntilClosed() == [.normal])
            #expect(server.metrics.openWebSockets == 0)
        }
    }

    @Test func idleConnectionIsClosedWith1000() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler, { $0.idleTimeout = .milliseconds(400) }) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            let close = try client.readNonPing()
            #expect(close.opcode == 0x8 && close.closeCode == 1000 && close.closeReason == "idle timeout")
            try client.sendClose(1000)
            #expect(client.waitForEOF())
        }
    }

    @Test func serverPingsASilentClientAndDropsItWhenNothingComesBack() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler, { $0.pingInterval = .milliseconds(300); $0.pongTimeout = .milliseconds(300) }) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            let ping = try client.readFrame()
            #expect(ping.opcode == 0x9)
            // No pong: the heartbeat times out.
            let close = try client.readFrame()
            #expect(close.opcode == 0x8 && close.closeCode == 1001 && close.closeReason == "heartbeat timeout")
            #expect(client.waitForEOF())
            #expect(handler.waitUntilClosed() == [.goingAway])
        }
    }

    @Test func answeredPingsKeepTheConnection() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler, { $0.pingInterval = .milliseconds(200); $0.pongTimeout = .milliseconds(300) }) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            for _ in 0..<3 {
                let ping = try client.readFrame()
                #expect(ping.opcode == 0x9)
                try client.send(WebSocketTestClient.masked(.pong, ping.payload))
            }
            try client.sendText("still here")
            #expect(try client.readNonPing().text == "still here")
        }
        #expect(handler.record.withLock { $0.closedCodes }.count <= 1)
    }

    @Test func shutdownClosesWebSocketsWith1001() throws {
        let handler = EchoWebSocketHandler()
        var router = standardRouter()
        router.get("/ws") { _, _ in .webSocket(handler) }
        let server = HTTPServer(configuration: testConfiguration(), responder: router)
        try server.start()
        let client = try WebSocketTestClient(port: server.boundPort)
        #expect(try client.upgrade().status == 101)
        try client.sendText("hi")
        #expect(try client.readNonPing().text == "hi")
        #expect(server.metrics.openWebSockets == 1)
        server.shutdown(deadline: .seconds(3))
        let close = try client.readNonPing()
        #expect(close.opcode == 0x8 && close.closeCode == 1001)
        try client.sendClose(1001)
        #expect(client.waitForEOF())
        server.waitUntilStopped()
        #expect(handler.waitUntilClosed() == [.goingAway])
    }
}
