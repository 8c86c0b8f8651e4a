/// Character classes from RFC 9110 §5.6 / RFC 9112, over raw bytes. The parser never looks at
/// bytes through `String`/`Character` before they are validated: Unicode normalisation and
/// grapheme clustering must not change what a byte means.
enum ByteClass {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20
    static let htab: UInt8 = 0x09

    /// `tchar` (RFC 9110 §5.6.2).
    @inline(__always)
    static func isTokenChar(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Control characters: everything below SP, and DEL.
    @inline(__always)
    static func isControl(_ b: UInt8) -> Bool { b < 0x20 || b == 0x7F }

    /// SP or HTAB (`OWS`/`BWS` members).
    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool { b == sp || b == htab }

    /// Bytes allowed inside a field value: VCHAR, obs-text, SP, HTAB (RFC 9110 §5.5).
    @inline(__always)
    static func isFieldValueChar(_ b: UInt8) -> Bool {
        b == sp || b == htab || (b >= 0x21 && b != 0x7F)
    }

    /// Bytes allowed in a request-target. Visible ASCII only; `#` is excluded because a
    /// fragment is never sent to a server (RFC 9112 §3.2) and its presence means a confused
    /// or hostile client. Other URI-unsafe but visible characters (`|`, `{`, `^` …) are left
    /// for the router to judge, as common servers accept them.
    @inline(__always)
    static func isTargetChar(_ b: UInt8) -> Bool {
        b >= 0x21 && b <= 0x7E && b != UInt8(ascii: "#")
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// The value of a hex digit, or nil.
    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `qdtext` of a quoted-string (RFC 9110 §5.6.4).
    @inline(__always)
    static func isQuotedTextChar(_ b: UInt8) -> Bool {
        b == htab || b == sp || b == 0x21 || (b >= 0x23 && b <= 0x5B) || (b >= 0x5D && b <= 0x7E) || b >= 0x80
    }

    /// What may follow a backslash in a quoted-pair: HTAB, SP, VCHAR, obs-text.
    @inline(__always)
    static func isQuotedPairChar(_ b: UInt8) -> Bool {
        b == htab || b == sp || (b >= 0x21 && b != 0x7F)
    }

    /// ASCII lowercase of one byte.
    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 {
        (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) ? b + 32 : b
    }

    /// Case-insensitive ASCII comparison of raw bytes with a lowercase literal.
    static func equalsLowercased<C: Collection>(_ bytes: C, _ lowercaseLiteral: StaticString) -> Bool
    where C.Element == UInt8 {
        guard bytes.count == lowercaseLiteral.utf8CodeUnitCount else { return false }
        var index = 0
        for b in bytes {
            if lower(b) != lowercaseLiteral.utf8Start[index] { return false }
            index += 1
        }
        return true
    }
}
