import Foundation
import HTTP1
import HTTPServer

/// The one place a `/rest/v1` error becomes bytes. The four keys come from `RestError`'s typed
/// fields — `details` and `hint` are `String?`, so nothing but a string or null can be written
/// there — and the extras follow in key order, skipping the four names so no extra can shadow
/// them.
extension RestError {
    static let reservedKeys: Set<String> = ["code", "message", "details", "hint"]

    var response: HTTPResponse {
        var body = Array("{\"code\":".utf8)
        HTTPResponse.appendJSONString(code, into: &body)
        body.append(contentsOf: ",\"message\":".utf8)
        HTTPResponse.appendJSONString(message, into: &body)
        body.append(contentsOf: ",\"details\":".utf8)
        Self.appendOptional(details, into: &body)
        body.append(contentsOf: ",\"hint\":".utf8)
        Self.appendOptional(hint, into: &body)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for key in extras.keys.sorted() where !Self.reservedKeys.contains(key) {
            // JSONValue always encodes; an extra that did not would be left out, not a broken body.
            guard let value = extras[key], let encoded = try? encoder.encode(value) else { continue }
            body.append(UInt8(ascii: ","))
            HTTPResponse.appendJSONString(key, into: &body)
            body.append(UInt8(ascii: ":"))
            body.append(contentsOf: encoded)
        }
        body.append(UInt8(ascii: "}"))
        var response = HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
        for field in extraHeaders { response.headers.add(name: field.name, value: field.value) }
        return response
    }

    private static func appendOptional(_ text: String?, into body: inout [UInt8]) {
        if let text { HTTPResponse.appendJSONString(text, into: &body) } else { body.append(contentsOf: "null".utf8) }
    }
}
