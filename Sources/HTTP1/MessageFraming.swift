/// How the end of a request body is found (RFC 9112 §6.3), decided once the head is read.
enum MessageFraming: Sendable, Equatable {
    case none
    case contentLength(Int)
    case chunked

    /// The order of checks is deliberate, most framing-critical first:
    /// 1. `Content-Length` together with `Transfer-Encoding` → 400. A proxy may have used the
    ///    other one, so this request's end is ambiguous (the CL.TE / TE.CL smuggling shapes).
    /// 2. `Transfer-Encoding` on HTTP/1.0 → 400 (1.0 has no chunked coding; §6.1).
    /// 3. `chunked` missing, repeated, or not last → 400: the length cannot be determined
    ///    (§6.3 rule 4), which outranks
    /// 4. any other coding (`gzip`, `identity`, unknown) → 501 (§6.1, coding not understood).
    ///    So `gzip, chunked` is 501 while `chunked, gzip` is 400.
    /// 5. `Content-Length`: more than one field, or a comma list, → 400 even when all values
    ///    agree. RFC 9110 §8.6 allows collapsing identical values; we choose strictness because
    ///    a lenient peer in front of us may not have collapsed them the same way.
    ///    Then digits only (no sign, spaces, or hex), no overflow → 400; over the body limit →
    ///    413 immediately, before any body byte is read.
    static func determine(for head: HTTPRequestHead, limits: HTTPParserLimits) throws(HTTPParseError) -> MessageFraming {
        let transferEncodings = head.headers.values(for: "Transfer-Encoding")
        let contentLengths = head.headers.values(for: "Content-Length")

        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty { throw .contentLengthWithTransferEncoding }
            if head.version == .http10 { throw .transferEncodingNotChunked }
            try checkTransferCodings(transferEncodings)
            return .chunked
        }
        guard !contentLengths.isEmpty else { return .none }
        guard contentLengths.count == 1, let value = contentLengths.first, !value.utf8.contains(UInt8(ascii: ",")) else {
            throw .duplicateContentLength
        }
        let length = try parseContentLength(value)
        if length > limits.maxBodyBytes { throw .bodyTooLarge }
        return length == 0 ? .none : .contentLength(length)
    }

    /// All `Transfer-Encoding` fields form one list (RFC 9110 §5.3). Empty list elements are
    /// ignored as §5.6.1 requires.
    private static func checkTransferCodings(_ fields: [String]) throws(HTTPParseError) {
        var codings: [Substring] = []
        for field in fields {
            for element in field.split(separator: ",", omittingEmptySubsequences: false) {
                let coding = element.trimmingASCIIWhitespace()
                if !coding.isEmpty { codings.append(coding) }
            }
        }
        let chunkedPositions = codings.indices.filter { ByteClass.equalsLowercased(codings[$0].utf8, "chunked") }
        guard chunkedPositions.count == 1, chunkedPositions.first == codings.count - 1 else {
            throw .transferEncodingNotChunked
        }
        if codings.count > 1 { throw .unsupportedTransferEncoding }
    }

    private static func parseContentLength(_ value: String) throws(HTTPParseError) -> Int {
        var result = 0
        var digits = 0
        for b in value.utf8 {
            guard ByteClass.isDigit(b) else { throw .invalidContentLength }
            let (shifted, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(b - UInt8(ascii: "0")))
            if overflow1 || overflow2 { throw .invalidContentLength }
            result = sum
            digits += 1
        }
        guard digits > 0 else { throw .invalidContentLength }
        return result
    }
}
