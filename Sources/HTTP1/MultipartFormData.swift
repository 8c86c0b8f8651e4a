/// A strict reader of `multipart/form-data` bodies (RFC 7578 over RFC 2046 §5.1), for bodies
/// already in memory (the server buffers every request body within its limit).
///
/// Written here rather than taken from multipart-kit, which needs SwiftNIO. Deliberately
/// narrower than RFC 2046 where the RFC only allows things no form client sends, because every
/// leniency is a place where two parsers can disagree about where a file starts:
/// - the body starts with the first boundary (no preamble) and ends with the close delimiter,
///   followed by nothing or one CRLF (no epilogue);
/// - lines end in CRLF; a bare CR or LF in a part's header block, obs-folded or non-UTF-8
///   headers, a header without a colon are errors;
/// - every part has exactly one `Content-Disposition: form-data; name=…` (with at most a
///   `filename` besides), at most one `Content-Type`, and no transfer encoding other than the
///   identity ones (RFC 7578 §4.7); other part headers are ignored, as §4.8 says;
/// - part count and header sizes are bounded (`Limits`).
/// A part's content is everything up to the next CRLF + `--boundary`, byte for byte.
public enum MultipartFormData {
    public struct Part: Sendable, Equatable {
        /// The `name` parameter, possibly empty (supabase-swift names its file part "").
        public var name: String
        /// The `filename` parameter when present: the part is a file.
        public var filename: String?
        /// The part's declared `Content-Type`, as sent.
        public var contentType: String?
        /// The content: a slice of the request body, not a copy.
        public var body: ArraySlice<UInt8>

        public init(name: String, filename: String?, contentType: String?, body: ArraySlice<UInt8>) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.body = body
        }
    }

    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// The Content-Type is not `multipart/form-data` with one valid `boundary`.
        case notFormData
        /// The body does not start with `--boundary`.
        case missingFirstBoundary
        /// After a boundary: neither `--` nor (whitespace and) CRLF.
        case malformedBoundaryLine
        /// No close delimiter before the body ends.
        case unterminated
        /// Bytes after the close delimiter other than one CRLF.
        case epilogue
        /// A part's header block is not CRLF-terminated `name: value` lines of UTF-8.
        case malformedHeader
        /// A part's header block is larger than `Limits.maxHeaderBytes`.
        case headersTooLarge
        /// More parts than `Limits.maxParts`.
        case tooManyParts
        /// A part without a valid `Content-Disposition: form-data; name=…`, or with two.
        case invalidDisposition
        /// A `Content-Transfer-Encoding` other than 7bit, 8bit or binary, or a repeated header.
        case unsupportedPartHeader

        /// A sentence for the client's error message.
        public var description: String {
            switch self {
            case .notFormData: "the Content-Type is not multipart/form-data with a valid boundary"
            case .missingFirstBoundary: "the body does not start with the boundary"
            case .malformedBoundaryLine: "a boundary line is followed by something other than CRLF"
            case .unterminated: "the body ends before the closing boundary"
            case .epilogue: "bytes follow the closing boundary"
            case .malformedHeader: "a part's headers are malformed"
            case .headersTooLarge: "a part's headers are too large"
            case .tooManyParts: "too many parts"
            case .invalidDisposition: "a part lacks a valid Content-Disposition: form-data; name=…"
            case .unsupportedPartHeader: "a part repeats Content-Type or uses a Content-Transfer-Encoding"
            }
        }
    }

    public struct Limits: Sendable {
        public var maxParts: Int
        public var maxHeaderBytes: Int

        public init(maxParts: Int = 8, maxHeaderBytes: Int = 4096) {
            self.maxParts = maxParts
            self.maxHeaderBytes = maxHeaderBytes
        }
    }

    /// The boundary of a `multipart/form-data` Content-Type: 1–70 `bchars`, not ending in a
    /// space (RFC 2046 §5.1.1).
    public static func boundary(contentType: String) throws(Problem) -> [UInt8] {
        guard let parsed = try? HeaderParameters(parsing: contentType), parsed.value == "multipart/form-data",
              let boundary = parsed["boundary"] else { throw .notFormData }
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count), bytes.last != ByteClass.sp, bytes.allSatisfy(isBoundaryChar) else {
            throw .notFormData
        }
        return bytes
    }

    /// Every part of `body`, in order.
    public static func parse(_ body: [UInt8], boundary: [UInt8], limits: Limits = Limits()) throws(Problem) -> [Part] {
        let dashBoundary = Array("--".utf8) + boundary
        let delimiter = [ByteClass.cr, ByteClass.lf] + dashBoundary
        guard body.starts(with: dashBoundary) else { throw .missingFirstBoundary }
        var index = dashBoundary.count
        var parts: [Part] = []
        while true {
            // After a boundary: "--" closes the body; otherwise transport padding, then CRLF.
            if body.count - index >= 2, body[index] == UInt8(ascii: "-"), body[index + 1] == UInt8(ascii: "-") {
                let rest = body.count - index - 2
                guard rest == 0 || (rest == 2 && body[index + 2] == ByteClass.cr && body[index + 3] == ByteClass.lf) else {
                    throw .epilogue
                }
                return parts
            }
            while index < body.count, ByteClass.isWhitespace(body[index]) { index += 1 }
            guard body.count - index >= 2 else { throw .unterminated }
            guard body[index] == ByteClass.cr, body[index + 1] == ByteClass.lf else { throw .malformedBoundaryLine }
            index += 2
            guard parts.count < limits.maxParts else { throw .tooManyParts }
            var part = try headers(body, from: &index, limits: limits)
            guard let end = firstIndex(of: delimiter, in: body, from: index) else { throw .unterminated }
            part.body = body[index..<end]
            parts.append(part)
            index = end + delimiter.count
        }
    }

    /// Reads a part's header block starting at `index` (leaving `index` at its content) into a
    /// part with an empty body.
    static func headers(_ body: [UInt8], from index: inout Int, limits: Limits) throws(Problem) -> Part {
        let blockStart = index
        var disposition: HeaderParameters?
        var contentType: String?
        var transferEncodingSeen = false
        while true {
            guard let lineEnd = try lineEnd(body, from: index, limit: blockStart + limits.maxHeaderBytes) else {
                throw body.count - blockStart > limits.maxHeaderBytes ? .headersTooLarge : .malformedHeader
            }
            let line = body[index..<lineEnd]
            index = lineEnd + 2
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(ByteClass.isTokenChar),
                  let value = String(validating: line[(colon + 1)...], as: UTF8.self)
            else { throw .malformedHeader }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercasedASCII()
            let trimmed = String(value.trimmingASCIIWhitespace())
            switch name {
            case "content-disposition":
                guard disposition == nil, let parsed = try? HeaderParameters(parsing: trimmed), parsed.value == "form-data",
                      parsed["name"] != nil, parsed.parameters.allSatisfy({ $0.name == "name" || $0.name == "filename" })
                else { throw .invalidDisposition }
                disposition = parsed
            case "content-type":
                guard contentType == nil else { throw .unsupportedPartHeader }
                contentType = trimmed
            case "content-transfer-encoding":
                guard !transferEncodingSeen, ["7bit", "8bit", "binary"].contains(trimmed.lowercasedASCII()) else {
                    throw .unsupportedPartHeader
                }
                transferEncodingSeen = true
            default:
                break
            }
        }
        guard let disposition, let name = disposition["name"] else { throw .invalidDisposition }
        return Part(name: name, filename: disposition["filename"], contentType: contentType, body: [])
    }

    /// The index of the CRLF ending the line that starts at `start`, if it ends before `limit`;
    /// nil at a bare CR or LF, a control character, or no CRLF in reach.
    static func lineEnd(_ body: [UInt8], from start: Int, limit: Int) throws(Problem) -> Int? {
        var index = start
        let end = min(body.count, limit)
        while index < end {
            let byte = body[index]
            if byte == ByteClass.cr {
                guard index + 1 < body.count, body[index + 1] == ByteClass.lf else { throw .malformedHeader }
                return index
            }
            guard byte == ByteClass.htab || !ByteClass.isControl(byte) else { throw .malformedHeader }
            // A header line may not start with whitespace (obs-fold, RFC 9112 §5.2).
            if index == start, ByteClass.isWhitespace(byte) { throw .malformedHeader }
            index += 1
        }
        return nil
    }

    /// The first occurrence of `pattern` in `body` at or after `start`.
    static func firstIndex(of pattern: [UInt8], in body: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, body.count - start >= pattern.count else { return nil }
        return body.withUnsafeBufferPointer { bytes in
            pattern.withUnsafeBufferPointer { needle in
                var index = start
                let last = bytes.count - needle.count
                while index <= last {
                    if bytes[index] == first {
                        var matched = 1
                        while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
                        if matched == needle.count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }

    /// RFC 2046 `bchars`: DIGIT / ALPHA / ' ( ) + _ , - . / : = ? and space.
    static func isBoundaryChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            boundaryPunctuation.contains(byte)
        }
    }

    static let boundaryPunctuation = Array("'()+_,-./:=? ".utf8)
}
