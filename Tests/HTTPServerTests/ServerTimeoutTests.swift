import Foundation
import Glibc
import HTTP1
import HTTPServer
import Synchronization
import Testing

@Suite struct ServerTimeoutTests {
    @Test func slowHeaderClient_isCutOffWith408_whileOthersAreServed() throws {
        try withServer { _, port in
            let slow = try RawClient(port: port)
            let stop = Atomic<Bool>(false)
            let slowFD = slow.fd
            // Trickle one byte every 50 ms — never completing the head.
            let trickler = Thread {
                let bytes = Array("GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8)
                for byte in bytes {
                    if stop.load(ordering: .relaxed) { return }
                    _ = withUnsafeBytes(of: byte) { send(slowFD, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                    usleep(50_000)
                }
            }
            trickler.start()
            defer { stop.store(true, ordering: .relaxed) }
            let normal = try RawClient(port: port)
            for _ in 0..<3 {
                try normal.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try normal.readResponse().bodyText == "hello")
            }
            let cutOff = try slow.readResponse()
            #expect(cutOff.statusCode == 408)
            #expect(cutOff.bodyText.contains(#""code":"request_timeout""#))
            #expect(slow.waitForClose())
        }
    }

    @Test func slowBodyClient_isCutOffWith408() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly-a-little")
            let response = try client.readResponse()
            #expect(response.statusCode == 408)
            #expect(response.header("Connection") == "close")
            #expect(client.waitForClose())
        }
    }

    @Test func idleKeepAliveConnection_isClosedAfterIdleTimeout() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().statusCode == 200)
            #expect(client.waitForClose())
        }
    }

    @Test func silentClient_isClosedWithoutResponse() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            #expect(client.waitForClose())
        }
    }

    @Test func connectionBeyondMax_gets503WithRetryAfter() throws {
        let configuration = testConfiguration {
            $0.maxConnections = 2
            $0.idleTimeout = .seconds(5)
            $0.headerReadTimeout = .seconds(5)
        }
        try withServer(configuration) { server, port in
            let first = try RawClient(port: port)
            let second = try RawClient(port: port)
            for client in [first, second] {
                try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try client.readResponse().statusCode == 200)
            }
            let third = try RawClient(port: port)
            let rejected = try third.readResponse()
            #expect(rejected.statusCode == 503)
            #expect(rejected.header("Retry-After") == "1")
            #expect(rejected.bodyText.contains(#""code":"too_many_connections""#))
            #expect(rejected.header("X-Content-Type-Options") == "nosniff")
            #expect(rejected.header("Cache-Control") == "no-store")
            #expect(third.waitForClose())
            #expect(server.metrics.rejectedConnections == 1)
            // The admitted connections still work.
            try first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try first.readResponse().statusCode == 200)
        }
    }
}

@Suite struct ServerWriteTests {
    static func bigRouter(size: Int) -> Router {
        var router = Router()
        let body = [UInt8](repeating: 0x78, count: size)
        router.get("/big") { _, _ in .response(HTTPResponse(body: body)) }
        return router
    }

    @Test func largeResponse_exceedingSocketBuffers_arrivesWhole() throws {
        let size = 8 * 1024 * 1024
        try withServer(router: Self.bigRouter(size: size)) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.body.count == size)
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().body.count == size)
        }
    }

    @Test func slowReader_isCutOffByWriteTimeout() throws {
        let size = 64 * 1024 * 1024
        let configuration = testConfiguration { $0.writeTimeout = .milliseconds(300) }
        try withServer(configuration, router: Self.bigRouter(size: size)) { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            usleep(1_500_000) // read nothing while the write deadline passes
            #expect(client.waitForClose())
            #expect(client.receivedByteCount < size)
        }
    }
}
