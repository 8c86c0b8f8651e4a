import Foundation
import HTTPServer
import JSON

/// Small JSON text helpers for messages assembled from pieces (rows arrive as JSON text).
enum JSONText {
    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func quoted(_ text: String?) -> String {
        text.map { quoted($0) } ?? "null"
    }

    /// A decoded value back to text (client payloads relayed by broadcast).
    static func encode(_ value: JSONValue) -> String {
        guard let data = try? JSONEncoder().encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses a JSON object from text; nil when it is not one.
    static func object(_ text: String) -> [String: JSONValue]? {
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return nil }
        return object
    }
}
