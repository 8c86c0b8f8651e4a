import HTTP1

/// Feeds a byte stream to a `WebSocketFrameDecoder` in pieces and records what it reports,
/// like `ParserDriver` does for the HTTP parser. Events are rendered as short strings
/// (`text:…`, `binary:hex`, `ping:hex`, `pong:hex`, `close:1000:reason`, `close:none`, `fail:1002`).
struct WebSocketDriver {
    var events: [String] = []
    var violations: [String] = []

    static func run(_ input: [UInt8], limits: WebSocketDecoderLimits, splitAt offsets: [Int]) -> WebSocketDriver {
        var driver = WebSocketDriver()
        var decoder = WebSocketFrameDecoder(limits: limits)
        var bounds = offsets.filter { $0 > 0 && $0 < input.count }
        bounds.append(input.count)
        var start = 0
        outer: for end in bounds where end >= start {
            var piece = Array(input[start..<end])
            start = end
            while true {
                let result = decoder.decode(piece)
                switch result {
                case .needMore(let consumed):
                    if consumed != piece.count { driver.violations.append("needMore consumed \(consumed) of \(piece.count)") }
                    continue outer
                case .event(let event, let consumed):
                    if consumed > piece.count || consumed < 0 {
                        driver.violations.append("consumed \(consumed) > presented \(piece.count)")
                        break outer
                    }
                    driver.events.append(render(event))
                    piece.removeFirst(consumed)
                case .failure(let failure):
                    driver.events.append("fail:\(failure.closeCode)")
                    if decoder.decode([0x81, 0x80, 0, 0, 0, 0]) != result { driver.violations.append("failure not sticky") }
                    break outer
                }
            }
        }
        return driver
    }

    static func render(_ event: WebSocketEvent) -> String {
        switch event {
        case .text(let bytes): return "text:" + String(decoding: bytes, as: UTF8.self)
        case .binary(let bytes): return "binary:" + hex(bytes)
        case .ping(let bytes): return "ping:" + hex(bytes)
        case .pong(let bytes): return "pong:" + hex(bytes)
        case .close(nil, _): return "close:none"
        case .close(let code?, let reason): return "close:\(code):\(reason)"
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
