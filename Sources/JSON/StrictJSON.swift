/// Checks a JSON request body before Foundation parses it, for what `JSONDecoder` lets
/// through: text that is not UTF-8 (it detects UTF-16/32 and byte order marks and decodes
/// them) and duplicate keys in one object (it silently keeps one of them). It walks the full
/// RFC 8259 grammar over the bytes, so a key is only ever a key (not text inside a string),
/// and compares keys after unescaping (`"a"` and `"\u0061"` are the same key).
///
/// Bounded work for any input: one pass, nesting limited to `maxDepth` (recursion depth), no
/// allocation beyond one `Set` of the keys of each open object.
public struct StrictJSON {
    public enum Problem: Error, Equatable, Sendable {
        /// A byte order mark, a NUL byte (UTF-16/32 text), or a byte sequence that is not UTF-8.
        case notUTF8
        /// Not JSON by RFC 8259 (including an unpaired `\uD800`-style surrogate escape).
        case malformed
        /// Arrays and objects nested deeper than `maxDepth`.
        case tooDeep
        /// The same key twice in one object, at any depth; the key as unescaped.
        case duplicateKey(String)
    }

    /// Far beyond any body the API accepts (a push mutation is four levels deep).
    public static let maxDepth = 64

    /// Throws the first problem found; returns when `bytes` is one well-formed UTF-8 JSON text
    /// without duplicate keys.
    public static func check(_ bytes: [UInt8]) throws(Problem) {
        let boms: [[UInt8]] = [[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE]]
        // A NUL byte is never valid JSON (not whitespace, and must be escaped in a string); in
        // practice it means UTF-16 or UTF-32 text, so it is an encoding problem.
        guard !boms.contains(where: { bytes.starts(with: $0) }), !bytes.contains(0),
              String(validating: bytes, as: UTF8.self) != nil
        else { throw .notUTF8 }
        var scanner = StrictJSON(bytes: bytes)
        scanner.skipWhitespace()
        try scanner.value(depth: 0)
        scanner.skipWhitespace()
        guard scanner.index == bytes.count else { throw .malformed }
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Problem) {
        guard current == byte else { throw .malformed }
        index += 1
    }

    private mutating func value(depth: Int) throws(Problem) {
        switch current {
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "\""): _ = try string(keepingText: false)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    private mutating func object(depth: Int) throws(Problem) {
        guard depth <= Self.maxDepth else { throw .tooDeep }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return
        }
        var keys = Set<String>()
        while true {
            guard current == UInt8(ascii: "\"") else { throw .malformed }
            let key = try string(keepingText: true)
            // Swift compares strings by canonical equivalence, exactly as the `[String: JSONValue]`
            // the decoder builds would merge them, so this catches every key that would collapse.
            guard keys.insert(key).inserted else { throw .duplicateKey(key) }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            try value(depth: depth)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            try expect(UInt8(ascii: "}"))
            return
        }
    }

    private mutating func array(depth: Int) throws(Problem) {
        guard depth <= Self.maxDepth else { throw .tooDeep }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try value(depth: depth)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            try expect(UInt8(ascii: "]"))
            return
        }
    }

    private mutating func literal(_ word: String) throws(Problem) {
        for byte in word.utf8 { try expect(byte) }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Problem) {
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard let first = current, (0x31...0x39).contains(first) else { throw .malformed }
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard requireDigits() else { throw .malformed }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard requireDigits() else { throw .malformed }
        }
    }

    private mutating func skipDigits() {
        while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
    }

    private mutating func requireDigits() -> Bool {
        let start = index
        skipDigits()
        return index > start
    }

    /// A string at `index` (its opening quote). Returns its unescaped text when `keepingText`
    /// (keys), else "" (values are only checked).
    private mutating func string(keepingText: Bool) throws(Problem) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ scanner: StrictJSON, upTo end: Int) {
            guard keepingText, end > runStart else { return }
            // The whole body was validated as UTF-8, and a run never splits a sequence
            // (it stops only at ASCII `"` or `\`).
            scalars.append(contentsOf: String(decoding: scanner.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = current else { throw .malformed }
            switch byte {
            case UInt8(ascii: "\""):
                flushRun(self, upTo: index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flushRun(self, upTo: index)
                index += 1
                let scalar = try escape()
                if keepingText { scalars.append(scalar) }
                runStart = index
            case 0x00..<0x20:
                throw .malformed
            default:
                index += 1
            }
        }
    }

    /// The escape after a backslash; `\uD83D\uDE00` pairs are joined, lone surrogates refused.
    private mutating func escape() throws(Problem) -> Unicode.Scalar {
        guard let byte = current else { throw .malformed }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                try expect(UInt8(ascii: "\\"))
                try expect(UInt8(ascii: "u"))
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw .malformed }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw .malformed }
                return scalar
            }
            guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw .malformed }  // a lone low surrogate
            return scalar
        default:
            throw .malformed
        }
    }

    private mutating func hex4() throws(Problem) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw .malformed }
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw .malformed
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
