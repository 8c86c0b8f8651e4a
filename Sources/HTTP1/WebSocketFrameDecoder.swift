/// Server-side RFC 6455 frame decoder: pure and incremental (bytes may arrive split anywhere;
/// the events and failures are the same as for the whole stream). Enforces client masking,
/// zero RSV bits (no extensions are negotiated), known opcodes, control frames of at most 125
/// bytes and unfragmented, continuation sequencing, minimal length encoding, the size limits,
/// close payloads (§7.4 code ranges, UTF-8 reason) and text UTF-8, checked as bytes arrive.
/// Binary messages are assembled like text ones (same limits) but their bytes are opaque:
/// what they mean is the handler's business. After a close frame nothing more is decoded
/// (later bytes are discarded).
public struct WebSocketFrameDecoder: Sendable {
    private enum Phase: Sendable {
        case header
        case payload(remaining: Int)
        case closed
        case failed(WebSocketFailure)
    }

    public let limits: WebSocketDecoderLimits
    /// Frames whose header was complete so far (the caller's rate limit counts these).
    public private(set) var frameCount = 0

    private var phase = Phase.header
    private var header: [UInt8] = []
    private var opcode = WebSocketOpcode.continuation
    private var fin = false
    private var maskKey: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    private var maskOffset = 0
    /// The message being assembled (across fragments), whether it is text, and its UTF-8 check.
    private var messageActive = false
    private var messageIsText = true
    private var message: [UInt8] = []
    private var utf8 = WebSocketUTF8Validator()
    /// The current control frame's payload.
    private var control: [UInt8] = []

    public init(limits: WebSocketDecoderLimits = WebSocketDecoderLimits()) {
        self.limits = limits
        header.reserveCapacity(14)
    }

    /// Decodes from `buffer` until one event, a failure, or the end of the bytes.
    public mutating func decode(_ buffer: UnsafeRawBufferPointer) -> WebSocketDecodeResult {
        var offset = 0
        while true {
            switch phase {
            case .failed(let failure):
                return .failure(failure)
            case .closed:
                return .needMore(consumed: buffer.count)
            case .header:
                guard offset < buffer.count else { return .needMore(consumed: offset) }
                header.append(buffer[offset])
                offset += 1
                if let failure = headerProgress() { return fail(failure) }
                if case .payload(0) = phase, let result = finishFrame(consumed: offset) { return result }
            case .payload(let remaining):
                guard offset < buffer.count else { return .needMore(consumed: offset) }
                let take = min(remaining, buffer.count - offset)
                if let failure = absorb(UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + take)])) {
                    return fail(failure)
                }
                offset += take
                phase = .payload(remaining: remaining - take)
                if remaining == take, let result = finishFrame(consumed: offset) { return result }
            }
        }
    }

    public mutating func decode(_ bytes: [UInt8]) -> WebSocketDecodeResult {
        bytes.withUnsafeBytes { decode($0) }
    }

    // MARK: Header

    /// Called after each header byte: checks what can be checked, and moves to the payload
    /// once the header is whole.
    private mutating func headerProgress() -> WebSocketFailure? {
        if header.count == 2, let failure = checkFirstTwoBytes() { return failure }
        guard header.count >= 2 else { return nil }
        let lengthCode = header[1] & 0x7F
        let extended = lengthCode == 126 ? 2 : (lengthCode == 127 ? 8 : 0)
        guard header.count == 2 + extended + 4 else { return nil }
        var length = 0
        switch lengthCode {
        case 126:
            length = Int(header[2]) << 8 | Int(header[3])
            if length < 126 { return .protocolError("length not minimally encoded") }
        case 127:
            if header[2] & 0x80 != 0 { return .protocolError("64-bit length with the top bit set") }
            var wide: UInt64 = 0
            for index in 2..<10 { wide = wide << 8 | UInt64(header[index]) }
            if wide <= 0xFFFF { return .protocolError("length not minimally encoded") }
            if wide > UInt64(limits.maxFrameBytes) { return WebSocketFailure(closeCode: 1009, reason: "frame too big") }
            length = Int(wide)
        default:
            length = Int(lengthCode)
        }
        if length > limits.maxFrameBytes { return WebSocketFailure(closeCode: 1009, reason: "frame too big") }
        if !opcode.isControl && message.count + length > limits.maxMessageBytes {
            return WebSocketFailure(closeCode: 1009, reason: "message too big")
        }
        let keyStart = 2 + extended
        maskKey = (header[keyStart], header[keyStart + 1], header[keyStart + 2], header[keyStart + 3])
        maskOffset = 0
        header.removeAll(keepingCapacity: true)
        frameCount += 1
        phase = .payload(remaining: length)
        return nil
    }

    private mutating func checkFirstTwoBytes() -> WebSocketFailure? {
        let first = header[0]
        let second = header[1]
        if first & 0x70 != 0 { return .protocolError("reserved bits set without an extension") }
        guard let code = WebSocketOpcode(rawValue: first & 0x0F) else { return .protocolError("unknown opcode") }
        if second & 0x80 == 0 { return .protocolError("client frames must be masked") }
        fin = first & 0x80 != 0
        opcode = code
        let lengthCode = second & 0x7F
        switch code {
        case .close, .ping, .pong:
            if !fin { return .protocolError("fragmented control frame") }
            if lengthCode > 125 { return .protocolError("control frame longer than 125 bytes") }
        case .continuation:
            if !messageActive { return .protocolError("continuation without a message") }
        case .text, .binary:
            if messageActive { return .protocolError("new message inside a fragmented one") }
            messageActive = true
            messageIsText = code == .text
        }
        return nil
    }

    // MARK: Payload

    /// Unmasks payload bytes into the message or control buffer (text checked as it comes).
    private mutating func absorb(_ bytes: UnsafeRawBufferPointer) -> WebSocketFailure? {
        let start = maskOffset
        maskOffset = (start + bytes.count) & 3
        if opcode.isControl {
            Self.appendUnmasked(bytes, key: maskKey, offset: start, to: &control)
            return nil
        }
        let before = message.count
        Self.appendUnmasked(bytes, key: maskKey, offset: start, to: &message)
        guard messageIsText else { return nil }
        let valid = message.withUnsafeBytes { utf8.feed(UnsafeRawBufferPointer(rebasing: $0[before...])) }
        return valid ? nil : WebSocketFailure(closeCode: 1007, reason: "text is not valid UTF-8")
    }

    /// Appends `bytes` XORed with the mask key, starting `offset` bytes into the key.
    private static func appendUnmasked(_ bytes: UnsafeRawBufferPointer, key: (UInt8, UInt8, UInt8, UInt8),
                                       offset: Int, to out: inout [UInt8]) {
        let before = out.count
        out.append(contentsOf: bytes)
        out.withUnsafeMutableBufferPointer { buffer in
            for index in before..<buffer.count {
                switch (offset + index - before) & 3 {
                case 0: buffer[index] ^= key.0
                case 1: buffer[index] ^= key.1
                case 2: buffer[index] ^= key.2
                default: buffer[index] ^= key.3
                }
            }
        }
    }

    /// The current frame's payload is complete: an event, a failure, or nil (a non-final fragment).
    private mutating func finishFrame(consumed: Int) -> WebSocketDecodeResult? {
        phase = .header
        switch opcode {
        case .ping:
            defer { control.removeAll(keepingCapacity: true) }
            return .event(.ping(control), consumed: consumed)
        case .pong:
            defer { control.removeAll(keepingCapacity: true) }
            return .event(.pong(control), consumed: consumed)
        case .close:
            switch Self.parseClose(control) {
            case .failure(let failure): return fail(failure)
            case .success(let event):
                control = []
                phase = .closed
                return .event(event, consumed: consumed)
            }
        case .text, .continuation, .binary:
            guard fin else { return nil }
            if messageIsText && !utf8.isComplete {
                return fail(WebSocketFailure(closeCode: 1007, reason: "text is not valid UTF-8"))
            }
            let bytes = message
            message = []
            messageActive = false
            utf8 = WebSocketUTF8Validator()
            return .event(messageIsText ? .text(bytes) : .binary(bytes), consumed: consumed)
        }
    }

    /// A close payload: empty, or a valid code (§7.4) and a UTF-8 reason.
    static func parseClose(_ payload: [UInt8]) -> Result<WebSocketEvent, WebSocketFailure> {
        if payload.isEmpty { return .success(.close(code: nil, reason: "")) }
        if payload.count == 1 { return .failure(.protocolError("close payload of one byte")) }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard isValidReceivedCloseCode(code) else { return .failure(.protocolError("invalid close code")) }
        let reasonBytes = Array(payload[2...])
        var validator = WebSocketUTF8Validator()
        guard validator.feed(reasonBytes), validator.isComplete else {
            return .failure(WebSocketFailure(closeCode: 1007, reason: "close reason is not valid UTF-8"))
        }
        return .success(.close(code: code, reason: String(decoding: reasonBytes, as: UTF8.self)))
    }

    /// Codes a peer may send (§7.4.1 and the IANA registry): 1004–1006 and 1015 are reserved
    /// for reporting only, below 1000 and 1016–2999 are unassigned or reserved.
    public static func isValidReceivedCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    private mutating func fail(_ failure: WebSocketFailure) -> WebSocketDecodeResult {
        phase = .failed(failure)
        message = []
        control = []
        header = []
        return .failure(failure)
    }
}
