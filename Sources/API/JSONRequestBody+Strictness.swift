import HTTP1
import HTTPServer

/// What a JSON body must be before its fields are read: `application/json` in UTF-8 (RFC 8259
/// §8.1), well-formed, each key once per object (StrictJSON).
extension JSONRequestBody {
    /// 415 for another media type, and for a `charset` parameter other than UTF-8: the body
    /// is declared in an encoding we do not read, so the media type as sent is unsupported.
    /// (A body that *claims* nothing or UTF-8 but is not UTF-8 is a malformed body: 400.)
    static func checkContentType(_ header: String?) throws {
        let parts = (header ?? "").split(separator: ";")
        guard parts.first?.trimmingASCIIWhitespace().lowercasedASCII() == "application/json" else {
            throw HTTPError(status: .unsupportedMediaType, code: "unsupported_media_type",
                            message: "The request body must be JSON (Content-Type: application/json).")
        }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingASCIIWhitespace().lowercasedASCII() == "charset" else { continue }
            var charset = pair[1].trimmingASCIIWhitespace().lowercasedASCII()
            if charset.count >= 2, charset.hasPrefix("\""), charset.hasSuffix("\"") { charset = String(charset.dropFirst().dropLast()) }
            guard charset == "utf-8" || charset == "utf8" else {
                throw HTTPError(status: .unsupportedMediaType, code: "unsupported_media_type",
                                message: "JSON request bodies must be UTF-8 (charset=utf-8, or no charset).")
            }
        }
    }

    static func httpError(_ problem: StrictJSON.Problem) -> HTTPError {
        switch problem {
        case .notUTF8:
            HTTPError.badRequest(code: "invalid_encoding",
                                 "The request body must be UTF-8 JSON without a byte order mark (UTF-16 and UTF-32 are refused).")
        case .malformed:
            HTTPError.badRequest(code: "invalid_json", "The request body is not valid JSON.")
        case .tooDeep:
            HTTPError.badRequest(code: "invalid_json",
                                 "The request body nests arrays and objects deeper than \(StrictJSON.maxDepth) levels.")
        case .duplicateKey(let key):
            // Named in full in `details`; the sentence keeps a long key readable.
            HTTPError(status: .badRequest, code: "duplicate_key",
                      message: "The key '\(key.count > 64 ? key.prefix(64) + "…" : key)' appears twice in one JSON object; send each key once.",
                      details: ["key": .string(key)])
        }
    }
}
