// libFuzzer target for WebSocketFrameDecoder. Built by scripts/fuzz-websocket together with
// the decoder's sources (Sources/HTTP1/WebSocket{FrameDecoder,FrameEncoder,Event,
// DecoderLimits,UTF8Validator}.swift) as one module, so no import is needed.
//
// The input is used two ways, chosen by its first byte: as raw client bytes, or as a list of
// frame descriptions (flags, length, payload) that the harness encodes with a mask — raw
// bytes are rarely masked, so the second way reaches fragmentation, UTF-8, close codes and
// limits. Each stream is decoded with default and with tiny limits, fed whole, split at two
// data-derived offsets, and (≤ 2 KiB) one byte at a time. Any difference between those runs,
// `consumed` outside the presented bytes, a failure that is not sticky, or a text event that
// is not valid UTF-8 aborts (which libFuzzer reports as a crash).

private let limitProfiles = [
    WebSocketDecoderLimits(),
    WebSocketDecoderLimits(maxFrameBytes: 16, maxMessageBytes: 24),
]

private func drive(_ input: [UInt8], cuts: [Int], limits: WebSocketDecoderLimits) -> [String] {
    var decoder = WebSocketFrameDecoder(limits: limits)
    var events: [String] = []
    var start = 0
    for end in cuts + [input.count] where end >= start {
        var piece = Array(input[start..<end])
        start = end
        while true {
            let result = decoder.decode(piece)
            switch result {
            case .needMore(let consumed):
                if consumed != piece.count { fatalError("needMore consumed \(consumed) of \(piece.count)") }
            case .event(let event, let consumed):
                if consumed < 0 || consumed > piece.count { fatalError("consumed \(consumed) of \(piece.count)") }
                if case .text(let bytes) = event, String(validating: bytes, as: UTF8.self) == nil {
                    fatalError("text event that is not UTF-8")
                }
                if case .close(let code?, _) = event, !WebSocketFrameDecoder.isValidReceivedCloseCode(code) {
                    fatalError("close event with invalid code \(code)")
                }
                events.append("\(event)")
                piece.removeFirst(consumed)
                continue
            case .failure(let failure):
                events.append("fail \(failure.closeCode)")
                if decoder.decode([0x81, 0x80, 1, 2, 3, 4]) != result { fatalError("decoder forgot its failure") }
                return events
            }
            break
        }
    }
    return events
}

/// Frames from descriptions: [flags][length][payload…]; flags: bit 7 fin, bits 4–6 rsv,
/// bits 0–3 opcode. The harness masks them as a client must.
private func framesFromDescriptions(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    var rest = bytes
    while rest.count >= 2 {
        let flags = rest.removeFirst()
        let length = Int(rest.removeFirst())
        let payload = rest.prefix(length)
        rest = rest.dropFirst(payload.count)
        guard let opcode = WebSocketOpcode(rawValue: flags & 0x0F) else {
            out += [flags, 0x80, 0, 0, 0, 0] // an unknown opcode, masked
            continue
        }
        out += WebSocketFrameEncoder.frame(opcode, payload: Array(payload), fin: flags & 0x80 != 0,
                                           mask: (flags, UInt8(length & 0xFF), 0x5A, 0xC3), rsv: (flags >> 4) & 0x7)
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = raw.first else { return 0 }
    let input = mode & 1 == 0 ? Array(raw.dropFirst()) : framesFromDescriptions(raw.dropFirst())
    let a = input.isEmpty ? 0 : Int(mode) % (input.count + 1)
    let b = input.isEmpty ? 0 : Int(raw.last ?? 0) * 7 % (input.count + 1)
    for limits in limitProfiles {
        let whole = drive(input, cuts: [], limits: limits)
        let split = drive(input, cuts: [min(a, b), max(a, b)], limits: limits)
        if split != whole { fatalError("split at \(a),\(b): \(split) != \(whole)") }
        if input.count <= 2048 {
            let bytewise = drive(input, cuts: Array(0..<input.count), limits: limits)
            if bytewise != whole { fatalError("byte by byte: \(bytewise) != \(whole)") }
        }
    }
    return 0
}
