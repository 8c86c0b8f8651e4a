/// Incremental UTF-8 validation (RFC 3629), fed byte by byte across frame and read
/// boundaries, so an invalid text message is refused at its first bad byte — before the rest
/// of it is buffered — and a message split anywhere validates exactly like a whole one.
///
/// Rejects what Swift's `String(validating:)` rejects: overlong forms, surrogates
/// (U+D800–DFFF), code points above U+10FFFF, stray continuation bytes, and (at `isComplete`)
/// a truncated sequence at the end.
public struct WebSocketUTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected for the current code point.
    private var remaining: UInt8 = 0
    /// Allowed range of the next byte (narrower than 80–BF right after E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    public init() {}

    /// True when no code point is cut off at this point of the stream.
    public var isComplete: Bool { remaining == 0 }

    /// Feeds bytes; false at the first byte that cannot be part of valid UTF-8 (the validator
    /// is then in an unspecified state and should be discarded).
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            index += 1
            if remaining == 0 {
                if byte < 0x80 { continue }
                guard start(byte) else { return false }
            } else {
                guard byte >= lower && byte <= upper else { return false }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    public mutating func feed(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// A lead byte: how many continuation bytes follow and what the first may be.
    private mutating func start(_ byte: UInt8) -> Bool {
        switch byte {
        case 0xC2...0xDF: remaining = 1
        case 0xE0: remaining = 2; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: remaining = 2
        case 0xED: remaining = 2; upper = 0x9F
        case 0xF0: remaining = 3; lower = 0x90
        case 0xF1...0xF3: remaining = 3
        case 0xF4: remaining = 3; upper = 0x8F
        default: return false
        }
        return true
    }
}
