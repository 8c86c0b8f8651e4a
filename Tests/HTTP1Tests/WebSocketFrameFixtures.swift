import HTTP1

/// One frame-stream fixture: client bytes and what the decoder must report.
struct WebSocketFixture: Sendable, CustomStringConvertible {
    var name: String
    var input: [UInt8]
    var expected: [String]
    var limits = WebSocketDecoderLimits()
    var description: String { name }
}

/// Client frames (masked) for fixtures.
private func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
    WebSocketFrameEncoder.frame(opcode, payload: payload, fin: fin, mask: (0xA1, 0x0B, 0x5C, 0xFF), rsv: rsv)
}
private func text(_ string: String, fin: Bool = true) -> [UInt8] { frame(.text, Array(string.utf8), fin: fin) }
private func more(_ string: String, fin: Bool = true) -> [UInt8] { frame(.continuation, Array(string.utf8), fin: fin) }
private func close(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
    frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
}
/// A frame header with an explicit length encoding, masked with a zero key (payload as is).
private func rawHeader(_ first: UInt8, lengthBytes: [UInt8]) -> [UInt8] { [first] + lengthBytes + [0, 0, 0, 0] }

enum WebSocketFixtures {
    static let all: [WebSocketFixture] = valid + invalid + limits + closes

    static let valid: [WebSocketFixture] = [
        // RFC 6455 §5.7: a single-frame masked text message.
        .init(name: "rfc-masked-hello", input: [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58],
              expected: ["text:Hello"]),
        .init(name: "fragmented-text", input: text("Hel", fin: false) + more("lo"), expected: ["text:Hello"]),
        .init(name: "three-fragments-with-empty-middle", input: text("a", fin: false) + more("", fin: false) + more("b"),
              expected: ["text:ab"]),
        .init(name: "ping-between-fragments", input: text("a", fin: false) + frame(.ping, [1, 2]) + more("b"),
              expected: ["ping:0102", "text:ab"]),
        .init(name: "empty-text", input: text(""), expected: ["text:"]),
        .init(name: "pong", input: frame(.pong, [9]), expected: ["pong:09"]),
        .init(name: "ping-125-bytes", input: frame(.ping, [UInt8](repeating: 7, count: 125)),
              expected: ["ping:" + String(repeating: "07", count: 125)]),
        .init(name: "utf8-split-across-fragments", input: frame(.text, [0xE2, 0x82], fin: false) + frame(.continuation, [0xAC]),
              expected: ["text:€"]),
        .init(name: "four-byte-utf8", input: text("😀 ok"), expected: ["text:😀 ok"]),
        .init(name: "16-bit-length", input: text(String(repeating: "z", count: 200)),
              expected: ["text:" + String(repeating: "z", count: 200)]),
        .init(name: "64-bit-length", input: text(String(repeating: "q", count: 70_000)),
              expected: ["text:" + String(repeating: "q", count: 70_000)]),
        .init(name: "two-messages", input: text("one") + text("two"), expected: ["text:one", "text:two"]),
        .init(name: "binary", input: frame(.binary, [1, 2, 3]), expected: ["binary:010203"]),
        // Binary bytes are opaque: what would be invalid UTF-8 in text is fine.
        .init(name: "binary-not-utf8", input: frame(.binary, [0xFF, 0xC0, 0xAF, 0xED, 0xA0, 0x80]),
              expected: ["binary:ffc0afeda080"]),
        .init(name: "empty-binary", input: frame(.binary, []), expected: ["binary:"]),
        .init(name: "fragmented-binary-with-ping", input: frame(.binary, [0xFF], fin: false) + frame(.ping, [7])
              + frame(.continuation, [0xFE], fin: false) + frame(.continuation, [0x00]),
              expected: ["ping:07", "binary:fffe00"]),
        .init(name: "text-then-binary-then-text", input: text("a") + frame(.binary, [0xE2, 0x82]) + text("€"),
              expected: ["text:a", "binary:e282", "text:€"]),
        .init(name: "binary-64-bit-length", input: frame(.binary, [UInt8](repeating: 0xAB, count: 70_000)),
              expected: ["binary:" + String(repeating: "ab", count: 70_000)]),
        .init(name: "incomplete-frame", input: Array(text("hello").prefix(8)), expected: []),
    ]

    static let invalid: [WebSocketFixture] = [
        .init(name: "unmasked", input: [0x81, 0x02, 0x68, 0x69], expected: ["fail:1002"]),
        .init(name: "rsv1", input: frame(.text, [0x61], rsv: 4), expected: ["fail:1002"]),
        .init(name: "rsv3", input: frame(.text, [0x61], rsv: 1), expected: ["fail:1002"]),
        .init(name: "opcode-3", input: [0x83, 0x80, 0, 0, 0, 0], expected: ["fail:1002"]),
        .init(name: "opcode-b", input: [0x8B, 0x80, 0, 0, 0, 0], expected: ["fail:1002"]),
        .init(name: "binary-inside-fragmented-binary", input: frame(.binary, [1], fin: false) + frame(.binary, [2]),
              expected: ["fail:1002"]),
        .init(name: "text-inside-fragmented-binary", input: frame(.binary, [1], fin: false) + text("b"), expected: ["fail:1002"]),
        .init(name: "ping-126-bytes", input: rawHeader(0x89, lengthBytes: [0xFE, 0x00, 0x7E]), expected: ["fail:1002"]),
        .init(name: "fragmented-ping", input: frame(.ping, [], fin: false), expected: ["fail:1002"]),
        .init(name: "continuation-first", input: more("x"), expected: ["fail:1002"]),
        .init(name: "text-inside-fragmented", input: text("a", fin: false) + text("b"), expected: ["fail:1002"]),
        .init(name: "binary-inside-fragmented", input: text("a", fin: false) + frame(.binary, [1]), expected: ["fail:1002"]),
        .init(name: "16-bit-length-not-minimal", input: rawHeader(0x81, lengthBytes: [0xFE, 0x00, 0x7D]),
              expected: ["fail:1002"]),
        .init(name: "64-bit-length-not-minimal", input: rawHeader(0x81, lengthBytes: [0xFF, 0, 0, 0, 0, 0, 0, 0, 200]),
              expected: ["fail:1002"]),
        .init(name: "64-bit-length-top-bit", input: rawHeader(0x81, lengthBytes: [0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1]),
              expected: ["fail:1002"]),
        .init(name: "utf8-overlong", input: frame(.text, [0xC0, 0xAF]), expected: ["fail:1007"]),
        .init(name: "utf8-surrogate", input: frame(.text, [0xED, 0xA0, 0x80]), expected: ["fail:1007"]),
        .init(name: "utf8-above-10ffff", input: frame(.text, [0xF4, 0x90, 0x80, 0x80]), expected: ["fail:1007"]),
        .init(name: "utf8-truncated-at-end", input: frame(.text, [0x61, 0xE2, 0x82]), expected: ["fail:1007"]),
        // Refused at the bad fragment, before the message ends.
        .init(name: "utf8-invalid-in-first-fragment", input: frame(.text, [0xFF], fin: false), expected: ["fail:1007"]),
        .init(name: "failure-is-sticky", input: [0x81, 0x02, 0x68, 0x69] + text("after"), expected: ["fail:1002"]),
        .init(name: "events-then-failure", input: text("ok") + frame(.binary, [9]) + [0x82, 0x00],
              expected: ["text:ok", "binary:09", "fail:1002"]),
    ]

    static let limits: [WebSocketFixture] = [
        .init(name: "frame-at-limit", input: text(String(repeating: "a", count: 64)), expected: ["text:" + String(repeating: "a", count: 64)],
              limits: .init(maxFrameBytes: 64, maxMessageBytes: 64)),
        .init(name: "frame-one-past-limit", input: text(String(repeating: "a", count: 65)), expected: ["fail:1009"],
              limits: .init(maxFrameBytes: 64, maxMessageBytes: 1000)),
        .init(name: "huge-64-bit-length", input: rawHeader(0x81, lengthBytes: [0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
              expected: ["fail:1009"]),
        .init(name: "message-past-limit-across-fragments", input: text("aaaa", fin: false) + more("bbbb", fin: false) + more("c"),
              expected: ["fail:1009"], limits: .init(maxFrameBytes: 100, maxMessageBytes: 8)),
        .init(name: "message-at-limit-across-fragments", input: text("aaaa", fin: false) + more("bbbb"),
              expected: ["text:aaaabbbb"], limits: .init(maxFrameBytes: 100, maxMessageBytes: 8)),
        .init(name: "binary-frame-one-past-limit", input: frame(.binary, [UInt8](repeating: 1, count: 65)), expected: ["fail:1009"],
              limits: .init(maxFrameBytes: 64, maxMessageBytes: 1000)),
        .init(name: "binary-message-past-limit-across-fragments", input: frame(.binary, [1, 2, 3, 4], fin: false)
              + frame(.continuation, [5, 6, 7, 8], fin: false) + frame(.continuation, [9]),
              expected: ["fail:1009"], limits: .init(maxFrameBytes: 100, maxMessageBytes: 8)),
        .init(name: "binary-message-at-limit-across-fragments", input: frame(.binary, [1, 2, 3, 4], fin: false)
              + frame(.continuation, [5, 6, 7, 8]),
              expected: ["binary:0102030405060708"], limits: .init(maxFrameBytes: 100, maxMessageBytes: 8)),
        .init(name: "control-frame-ignores-message-limit", input: frame(.ping, [UInt8](repeating: 1, count: 20)),
              expected: ["ping:" + String(repeating: "01", count: 20)], limits: .init(maxFrameBytes: 100, maxMessageBytes: 8)),
    ]

    static let closes: [WebSocketFixture] = [
        .init(name: "close-1000-reason", input: close(1000, Array("bye".utf8)), expected: ["close:1000:bye"]),
        .init(name: "close-empty", input: frame(.close, []), expected: ["close:none"]),
        .init(name: "close-one-byte", input: frame(.close, [0x03]), expected: ["fail:1002"]),
        .init(name: "close-3000", input: close(3000), expected: ["close:3000:"]),
        .init(name: "close-4999", input: close(4999), expected: ["close:4999:"]),
        .init(name: "close-1014", input: close(1014), expected: ["close:1014:"]),
        .init(name: "close-999", input: close(999), expected: ["fail:1002"]),
        .init(name: "close-1004", input: close(1004), expected: ["fail:1002"]),
        .init(name: "close-1005", input: close(1005), expected: ["fail:1002"]),
        .init(name: "close-1006", input: close(1006), expected: ["fail:1002"]),
        .init(name: "close-1015", input: close(1015), expected: ["fail:1002"]),
        .init(name: "close-2999", input: close(2999), expected: ["fail:1002"]),
        .init(name: "close-5000", input: close(5000), expected: ["fail:1002"]),
        .init(name: "close-reason-not-utf8", input: close(1000, [0xC3, 0x28]), expected: ["fail:1007"]),
        .init(name: "close-between-fragments", input: text("a", fin: false) + close(1001), expected: ["close:1001:"]),
        .init(name: "nothing-after-close", input: close(1000) + text("ignored") + [0xFF, 0xFF], expected: ["close:1000:"]),
    ]
}
