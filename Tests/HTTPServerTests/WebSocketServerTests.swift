import HTTP1
@testable import HTTPServer
import Testing

/// A server whose `/ws` upgrades to `handler`.
func withWebSocketServer(_ handler: EchoWebSocketHandler,
                         _ adjust: (inout WebSocketConfiguration) -> Void = { _ in },
                         _ body: (HTTPServer, Int) throws -> Void) throws {
    var router = standardRouter()
    router.get("/ws") { _, _ in .webSocket(handler) }
    let configuration = testConfiguration { configuration in
        configuration.idleTimeout = .seconds(5)
        configuration.webSocket.idleTimeout = .seconds(30)
        configuration.webSocket.pingInterval = .seconds(30)
        adjust(&configuration.webSocket)
    }
    try withServer(configuration, router: router, body)
}

@Suite("WebSocket over the server")
struct WebSocketServerTests {
    @Test func handshakeAnswers101WithTheAcceptValueThenEchoes() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { server, port in
            let client = try WebSocketTestClient(port: port)
            let (status, head) = try client.upgrade()
            #expect(status == 101)
            // RFC 6455 §1.3's worked example.
            #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
            #expect(head.contains("Upgrade: websocket"))
            #expect(!head.contains("Content-Length"))
            try client.sendText("héllo")
            let frame = try client.readNonPing()
            #expect(frame.opcode == 0x1 && frame.fin && frame.text == "héllo")
            #expect(server.metrics.openWebSockets == 1)
            #expect(server.metrics.openConnections == 1)
        }
        #expect(handler.record.withLock { $0.opened } == 1)
    }

    @Test func framesPipelinedAfterTheRequestBelongToTheWebSocket() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { _, port in
            let client = try WebSocketTestClient(port: port)
            let frames = WebSocketTestClient.masked(.text, Array("one".utf8)) + WebSocketTestClient.masked(.text, Array("two".utf8))
            // Looks like an HTTP request too: it must be taken as frame bytes, never parsed.
            let (status, _) = try client.upgrade(after: frames)
            #expect(status == 101)
            #expect(try client.readNonPing().text == "one")
            #expect(try client.readNonPing().text == "two")
        }
    }

    @Test func badHandshakeIs400AndWrongVersionIs426() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { _, port in
            let missingKey = try RawClient(port: port)
            try missingKey.send("GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let first = try missingKey.readResponse()
            #expect(first.statusCode == 400)
            #expect(first.bodyText.contains("\"code\":\"websocket_handshake_invalid\""))
            #expect(first.bodyText.contains("\"hint\""))

            let shortKey = try RawClient(port: port)
            try shortKey.send(WebSocketTestClient.handshake(key: "c2hvcnQ="))
            #expect(try shortKey.readResponse().statusCode == 400)

            let notUpgrade = try RawClient(port: port)
            try notUpgrade.send("GET /ws HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try notUpgrade.readResponse().statusCode == 400)

            let version = try RawClient(port: port)
            try version.send(WebSocketTestClient.handshake(version: "8"))
            let answer = try version.readResponse()
            #expect(answer.statusCode == 426)
            #expect(answer.header("Sec-WebSocket-Version") == "13")
            #expect(answer.bodyText.contains("\"code\":\"websocket_version_unsupported\""))
        }
        #expect(handler.record.withLock { $0.opened } == 0)
    }
}

@Suite("WebSocket messages")
struct WebSocketMessageTests {
    @Test func fragmentedTextIsEchoedAsOneMessageAndPingGetsItsPong() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.send(WebSocketTestClient.masked(.text, Array("frag".utf8), fin: false))
            try client.send(WebSocketTestClient.masked(.ping, [0xDE, 0xAD]))
            try client.send(WebSocketTestClient.masked(.continuation, [0xE2, 0x82], fin: false))
            try client.send(WebSocketTestClient.masked(.continuation, [0xAC, 0x21]))
            let pong = try client.readFrame()
            #expect(pong.opcode == 0xA && pong.payload == [0xDE, 0xAD])
            let echo = try client.readFrame()
            #expect(echo.opcode == 0x1 && echo.text == "frag€!")
        }
        #expect(handler.record.withLock { $0.received } == ["frag€!"])
    }

    /// Binary bytes reach the handler as sent (no UTF-8 check: 0xFF is fine), fragments
    /// joined, and go back out as binary frames; text around them is unchanged.
    @Test func binaryMessagesReachTheHandlerAndGoBackAsBinaryFrames() throws {
        let handler = EchoWebSocketHandler()
        let bytes: [UInt8] = [0x03, 0x00, 0xFF, 0xC0, 0xAF, 0xED, 0xA0, 0x80]
        try withWebSocketServer(handler) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.sendText("before")
            try client.send(WebSocketTestClient.masked(.binary, Array(bytes.prefix(3)), fin: false))
            try client.send(WebSocketTestClient.masked(.ping, [1]))
            try client.send(WebSocketTestClient.masked(.continuation, Array(bytes.dropFirst(3))))
            try client.send(WebSocketTestClient.masked(.binary, []))
            try client.sendText("after")
            #expect(try client.readNonPing().text == "before")
            #expect(try client.readFrame() == .init(fin: true, opcode: 0xA, payload: [1]))
            #expect(try client.readFrame() == .init(fin: true, opcode: 0x2, payload: bytes))
            #expect(try client.readFrame() == .init(fin: true, opcode: 0x2, payload: []))
            #expect(try client.readNonPing().text == "after")
        }
        #expect(handler.record.withLock { $0.receivedBinary } == [bytes, []])
        #expect(handler.record.withLock { $0.received } == ["before", "after"])
    }

    @Test func messagesReachTheHandlerInOrder() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            var burst: [UInt8] = []
            for index in 0..<50 { burst += WebSocketTestClient.masked(.text, Array("m\(index)".utf8)) }
            try client.send(burst)
            for index in 0..<50 { #expect(try client.readNonPing().text == "m\(index)") }
        }
    }

    @Test func sendsFromManyThreadsAllArriveInEachThreadsOrder() throws {
        let handler = EchoWebSocketHandler()
        try withWebSocketServer(handler, { $0.sendQueueBytes = 1 << 20 }) { _, port in
            let client = try WebSocketTestClient(port: port)
            #expect(try client.upgrade().status == 101)
            try client.sendText("threads")
            var next = [Int](repeating: 0, count: 8)
            for _ in 0..<(8 * 250) {
                let text = try client.readNonPing().text
                let parts = text.dropFirst().split(separator: "-").compactMap { Int($0) }
                guard parts.count == 2, (0..<8).contains(parts[0]) else {
                    Issue.record("unexpected message \(text)")
                    return
                }
                #expect(parts[1] == next[parts[0]], "thread \(parts[0]) out of order")
                next[parts[0]] = parts[1] + 1
            }
            #expect(next == [Int](repeating: 250, count: 8))
        }
    }
}
