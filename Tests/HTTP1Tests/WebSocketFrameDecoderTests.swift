import HTTP1
import Testing

@Suite("WebSocket frame fixtures")
struct WebSocketFrameDecoderTests {
    @Test("Fixture fed whole gives its events", arguments: WebSocketFixtures.all)
    func wholeMatchesExpectations(_ fixture: WebSocketFixture) {
        let driver = WebSocketDriver.run(fixture.input, limits: fixture.limits, splitAt: [])
        #expect(driver.violations == [])
        #expect(driver.events == fixture.expected)
    }

    @Test("Fixture split at every offset gives the same events", arguments: WebSocketFixtures.all)
    func splitAtEveryOffsetMatchesWhole(_ fixture: WebSocketFixture) {
        // Long fixtures (one 70 KB frame): every offset in the header and near the end, and
        // every 1021st between; the rest all offsets.
        let count = fixture.input.count
        let offsets = (0...count).filter { count < 4096 || $0 < 64 || $0 > count - 64 || $0 % 1021 == 0 }
        for offset in offsets {
            let split = WebSocketDriver.run(fixture.input, limits: fixture.limits, splitAt: [offset])
            #expect(split.violations == [], "split at \(offset)")
            if split.events != fixture.expected {
                Issue.record("split at \(offset): \(split.events.map { $0.prefix(40) })")
                return
            }
        }
    }

    @Test("Fixture fed one byte at a time gives the same events", arguments: WebSocketFixtures.all.filter { $0.input.count < 4096 })
    func byteByByteMatchesWhole(_ fixture: WebSocketFixture) {
        let bytewise = WebSocketDriver.run(fixture.input, limits: fixture.limits, splitAt: Array(0..<fixture.input.count))
        #expect(bytewise.violations == [])
        #expect(bytewise.events == fixture.expected)
    }

    @Test func utf8ValidatorAgreesWithTheStandardLibrary() {
        // Every 1- and 2-byte sequence, and 3-byte ones around the E0/ED/F0/F4 edges.
        var inputs: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for a in 0xC0...0xFF { for b in 0x70...0xC0 { inputs.append([UInt8(a), UInt8(b)]) } }
        for a: UInt8 in [0xE0, 0xED, 0xEE, 0xF0, 0xF4, 0xF5] {
            for b in 0x70...0xC0 { inputs.append([a, UInt8(b), 0x80]); inputs.append([a, UInt8(b), 0x80, 0x80]) }
        }
        for input in inputs {
            var validator = WebSocketUTF8Validator()
            let ours = validator.feed(input) && validator.isComplete
            let swift = String(validating: input, as: UTF8.self) != nil
            #expect(ours == swift, "\(input)")
        }
    }

    @Test func handshakeKeyMustBeSixteenBytesOfBase64() {
        func head(_ key: String, version: String = "13", connection: String = "keep-alive, Upgrade") -> HTTPRequestHead {
            HTTPRequestHead(method: .get, target: "/ws", version: .http11,
                            headers: ["Host": "x", "Connection": connection, "Upgrade": "WebSocket",
                                      "Sec-WebSocket-Version": version, "Sec-WebSocket-Key": key])
        }
        #expect(WebSocketHandshake.validate(head("dGhlIHNhbXBsZSBub25jZQ==")) == .success("dGhlIHNhbXBsZSBub25jZQ=="))
        #expect(WebSocketHandshake.validate(head("dGhlIHNhbXBsZSBub25jZR==")) == .failure(.invalidKey)) // stray low bits
        #expect(WebSocketHandshake.validate(head("dGhlIHNhbXBsZSBub25jZQ=")) == .failure(.invalidKey))
        #expect(WebSocketHandshake.validate(head("dGhlIHNhbXBsZSBub25j*Q==")) == .failure(.invalidKey))
        #expect(WebSocketHandshake.validate(head("dGhlIHNhbXBsZSBub25jZQ==", version: "8")) == .failure(.unsupportedVersion))
        if case .failure(.notAnUpgrade) = WebSocketHandshake.validate(head("dGhlIHNhbXBsZSBub25jZQ==", connection: "close")) {
        } else {
            Issue.record("Connection without Upgrade accepted")
        }
    }
}
