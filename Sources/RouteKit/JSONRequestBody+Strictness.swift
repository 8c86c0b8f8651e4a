import Domain
import HTTP1
import HTTPServer
import JSON

/// What a JSON body must be before its fields are read: `application/json` in UTF-8 (RFC 8259
/// §8.1), well-formed, each key once per object (StrictJSON).
extension JSONRequestBody {
    /// 415 for another media type, and for a `charset` parameter other than UTF-8: the body
    /// is declared in an encoding we do not read, so the media type as sent is unsupported.
    /// (A body that *claims* nothing or UTF-8 but is not UTF-8 is a malformed body: 400.)
    package static func checkContentType(_ header: String?) throws {
        let parts = (header ?? "").split(separator: ";")
        guard parts.first?.trimmingASCIIWhitespace().lowercasedASCII() == "application/json" else {
            throw DomainError(.unsupportedMediaType, .unsupportedMediaType,
                              "The request body must be JSON (Content-Type: application/json).")
        }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingASCIIWhitespace().lowercasedASCII() == "charset" else { continue }
            var charset = pair[1].trimmingASCIIWhitespace().lowercasedASCII()
            if charset.count >= 2, charset.hasPrefix("\""), charset.hasSuffix("\"") { charset = String(charset.dropFirst().dropLast()) }
            guard charset == "utf-8" || charset == "utf8" else {
                throw DomainError(.unsupportedMediaType, .unsupportedMediaType,
                                  "JSON request bodies must be UTF-8 (charset=utf-8, or no charset).")
            }
        }
    }

    package static func domainError(_ problem: StrictJSON.Problem) -> DomainError {
        switch problem {
        case .notUTF8:
            DomainError.badRequest(.invalidEncoding,
                                   "The request body must be UTF-8 JSON without a byte order mark (UTF-16 and UTF-32 are refused).")
        case .malformed:
            DomainError.badRequest(.invalidJSON, "The request body is not valid JSON.")
        case .tooDeep:
            DomainError.badRequest(.invalidJSON,
                                   "The request body nests arrays and objects deeper than \(StrictJSON.maxDepth) levels.")
        case .duplicateKey(let key):
            // Named in full in `details`; the sentence keeps a long key readable.
            DomainError.badRequest(.duplicateKey,
                                   "The key '\(key.count > 64 ? key.prefix(64) + "…" : key)' appears twice in one JSON object; send each key once.",
                                   details: ["key": .string(key)])
        }
    }
}
