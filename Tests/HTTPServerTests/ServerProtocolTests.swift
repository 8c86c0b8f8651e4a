import Foundation
import Glibc
import HTTP1
import HTTPServer
import Synchronization
import Testing

@Suite struct ServerProtocolTests {
    @Test func keepAlive_severalRequestsOnOneConnection_allAnswered() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            for n in 0..<5 {
                try client.send("GET /count/\(n) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.statusCode == 200)
                #expect(response.bodyText == "\(n)")
                #expect(response.header("Connection") == nil)
                #expect(response.header("Date")?.hasSuffix(" GMT") == true)
                #expect(response.header("X-Request-Id")?.count == 16)
            }
        }
    }

    @Test func absoluteFormTarget_routesByItsPath() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            // RFC 9112 §3.2.2: the target's authority wins over Host; the path routes.
            try client.send("GET http://other.example:8080/count/7?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.statusCode == 200)
            #expect(response.bodyText == "7")
        }
    }

    @Test func connectionClose_isHonouredAndConnectionCloses() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.bodyText == "hello")
            #expect(response.header("Connection") == "close")
            #expect(client.waitForClose())
        }
    }

    @Test func http10_withoutKeepAlive_closesAfterResponse() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.bodyText == "hello")
            #expect(response.header("Connection") == "close")
            #expect(client.waitForClose())
        }
    }

    @Test func http10_withKeepAlive_staysOpen() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            for _ in 0..<2 {
                try client.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.bodyText == "hello")
                #expect(response.header("Connection") == "keep-alive")
            }
        }
    }

    @Test func pipelining_sixteenRequestsInOneWrite_answeredInOrder() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send((0..<16).map { "GET /count/\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            for n in 0..<16 {
                #expect(try client.readResponse().bodyText == "\(n)")
            }
        }
    }

    @Test func clientRequestID_saneToken_isEchoed_otherwiseReplaced() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc-123.Z_\r\n\r\n")
            #expect(try client.readResponse().header("X-Request-Id") == "abc-123.Z_")
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Request-Id: bad id!\r\n\r\n")
            let generated = try client.readResponse().header("X-Request-Id")
            #expect(generated != "bad id!")
            #expect(generated?.count == 16)
        }
    }

    @Test func expectContinue_rawSocket_gets100ThenResponse() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try client.readResponse()
            #expect(interim.statusCode == 100)
            try client.send("hello")
            let response = try client.readResponse()
            #expect(response.statusCode == 200)
            #expect(response.bodyText == "hello")
        }
    }

    @Test func expectContinue_bodyTooLarge_gets413Without100() throws {
        let configuration = testConfiguration { $0.limits.maxBodyBytes = 10 }
        try withServer(configuration) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.statusCode == 413)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.bodyText.contains("\"code\":\"body_too_large\""))
            #expect(client.waitForClose())
        }
    }

    @Test func expectContinue_realCurl_uploadsLargeBody() throws {
        try withServer { _, port in
            let body = String(repeating: "0123456789abcdef", count: 256) // 4 KiB: curl sends Expect
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
            try body.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-sS", "--max-time", "10", "-H", "Expect: 100-continue",
                                 "--data-binary", "@\(file.path)", "http://127.0.0.1:\(port)/echo"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(String(decoding: data, as: UTF8.self) == body)
        }
    }

    @Test func head_onGetRoute_sendsGetLengthWithoutBody() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse(forHead: true)
            #expect(response.statusCode == 200)
            #expect(response.header("Content-Length") == "5")
            // The next response must start right away: proves no body bytes were sent.
            try client.send("GET /count/9 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().bodyText == "9")
        }
    }

    @Test func unknownPath_is404JSON_wrongMethod_is405WithAllow() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
            let notFound = try client.readResponse()
            #expect(notFound.statusCode == 404)
            #expect(notFound.bodyText == #"{"code":"not_found","message":"No such resource.","details":null,"hint":null}"#)
            try client.send("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let notAllowed = try client.readResponse()
            #expect(notAllowed.statusCode == 405)
            #expect(notAllowed.header("Allow") == "GET, HEAD")
            #expect(notAllowed.bodyText.contains(#""code":"method_not_allowed""#))
        }
    }

    @Test func pathParametersAndQuery_reachHandler() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /v1/tasks/t%201/claim?q=a+b HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.statusCode == 200)
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]
            #expect(object == ["id": "t 1", "q": "a b"])
        }
    }

    @Test func handlerThrowingUnknownError_is500WithoutInternals() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.statusCode == 500)
            #expect(response.bodyText.contains(#""code":"internal_error""#))
            #expect(!response.bodyText.contains("hunter2"))
        }
    }

    @Test(arguments: [
        ("GET /hello HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", 400),
        ("GET /hello HTTP/1.1\r\n\r\n", 400),
        ("GET /hello HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
        ("GET /hello HTTP/1.1\nHost: x\n\n", 400),
    ])
    func malformedRequest_getsJSONErrorAndClose(request: String, status: Int) throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send(request)
            let response = try client.readResponse()
            #expect(response.statusCode == status)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Connection") == "close")
            #expect(response.bodyText.hasPrefix(#"{"code":""#))
            #expect(client.waitForClose())
        }
    }
}

@Suite struct ServerConcurrencyTests {
    @Test func manyConcurrentKeepAliveClients_allAnsweredCorrectly() throws {
        try withServer { server, port in
            let failures = Mutex(0)
            let done = DispatchGroup()
            for clientIndex in 0..<40 {
                done.enter()
                Thread {
                    defer { done.leave() }
                    do {
                        let client = try RawClient(port: port)
                        for n in 0..<25 {
                            let value = clientIndex * 100 + n
                            if n % 5 == 0 {
                                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(String(value).utf8.count)\r\n\r\n\(value)")
                            } else {
                                try client.send("GET /count/\(value) HTTP/1.1\r\nHost: x\r\n\r\n")
                            }
                            if try client.readResponse().bodyText != "\(value)" { failures.withLock { $0 += 1 } }
                        }
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }.start()
            }
            #expect(done.wait(timeout: .now() + 30) == .success)
            #expect(failures.withLock { $0 } == 0)
            #expect(server.metrics.totalRequests == 1000)
        }
    }
}

@Suite struct ServerHalfCloseTests {
    @Test func pipelinedRequestsThenHalfClose_allAnsweredThenClosed() throws {
        try withServer { _, port in
            let client = try RawClient(port: port)
            try client.send((0..<8).map { "GET /count/\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            shutdown(client.fd, Int32(SHUT_WR))
            for n in 0..<8 {
                #expect(try client.readResponse().bodyText == "\(n)")
            }
            #expect(client.waitForClose())
        }
    }
}
