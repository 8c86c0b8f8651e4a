import Foundation
import HTTP1
import JSON

extension HTTPResponse {
    /// A JSON response. Throws only if `value` refuses to encode (a bug in its Encodable).
    public static func json(_ value: some Encodable, status: HTTPStatus = .ok,
                            headers: HTTPHeaders = HTTPHeaders()) throws -> HTTPResponse {
        let data = try JSONEncoder().encode(value)
        var headers = headers
        headers.set(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: status, headers: headers, body: Array(data))
    }

    /// The contract §4 error shape. Built by hand (no encoder that could fail) so protocol errors
    /// can always be answered.
    public static func jsonError(status: HTTPStatus, code: String, message: String,
                                 details: JSONValue? = nil, hint: String? = nil) -> HTTPResponse {
        var body = Array("{\"code\":".utf8)
        appendJSONString(code, into: &body)
        body.append(contentsOf: ",\"message\":".utf8)
        appendJSONString(message, into: &body)
        body.append(contentsOf: ",\"details\":".utf8)
        if let details, details != .null,
           let data = try? JSONEncoder().encode(details) {
            body.append(contentsOf: data)
        } else {
            body.append(contentsOf: "null".utf8)
        }
        body.append(contentsOf: ",\"hint\":".utf8)
        if let hint { appendJSONString(hint, into: &body) } else { body.append(contentsOf: "null".utf8) }
        body.append(0x7D)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    public static func appendJSONString(_ string: String, into buffer: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        buffer.append(0x22)
        for byte in string.utf8 {
            switch byte {
            case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
            case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                buffer.append(contentsOf: Array("\\u00".utf8))
                buffer.append(hex[Int(byte >> 4)]); buffer.append(hex[Int(byte & 0xF)])
            default: buffer.append(byte)
            }
        }
        buffer.append(0x22)
    }
}
