import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON

/// The text `details` of a `/rest/v1` error carries for structured facts, so that a client
/// that only reads PostgREST's four keys (supabase-swift's `PostgrestError`) still gets them,
/// and the same facts as extra top-level keys for clients that read JSON
/// (docs/app-developers/errors.md, "details text").
///
/// The grammar is logfmt: `key=value` pairs separated by one space. A value is written bare
/// when it is non-empty printable ASCII without space, `"`, `=` or `\`, else as a JSON string
/// literal. Facts come in key order (`claimed_at=… claimed_by=…`); field problems as
/// `field=code` in the order they were found, a field repeating if it has two problems.
enum RestErrorDetails {
    /// A domain refusal's facts or field problems: the text and the extra keys.
    static func from(_ error: DomainError) -> (text: String?, extras: [String: JSONValue]) {
        if !error.fields.isEmpty {
            let text = logfmt(error.fields.map { ($0.field, .string($0.code)) })
            let errors = error.fields.map { field -> JSONValue in
                ["field": .string(field.field), "code": .string(field.code), "message": .string(field.message)]
            }
            return (text, ["errors": .array(errors)])
        }
        guard !error.details.isEmpty else { return (nil, [:]) }
        let facts = error.details.mapValues { detail -> JSONValue in
            switch detail {
            case .string(let text): .string(text)
            case .integer(let number): .number(Double(number))
            }
        }
        return (logfmt(facts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }), facts)
    }

    /// Another layer's JSON `details` (an `HTTPError`'s): a string stays as it is, an object
    /// becomes facts, an array the `errors` extra (described by its compact JSON text).
    static func from(_ details: JSONValue?) -> (text: String?, extras: [String: JSONValue]) {
        switch details {
        case nil, .null?:
            return (nil, [:])
        case .string(let text)?:
            return (text, [:])
        case .object(let facts)?:
            return (logfmt(facts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }), facts)
        case let value?:
            return (compactJSON(value), value.isArray ? ["errors": value] : [:])
        }
    }

    static func logfmt(_ pairs: [(String, JSONValue)]) -> String {
        pairs.map { key, value in "\(bare(key) ? key : quoted(key))=\(text(value))" }.joined(separator: " ")
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): bare(string) ? string : quoted(string)
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array, .object: quoted(compactJSON(value))
        }
    }

    private static func bare(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=")
            && $0 != UInt8(ascii: "\\") }
    }

    private static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        HTTPResponse.appendJSONString(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func compactJSON(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

private extension JSONValue {
    var isArray: Bool {
        if case .array = self { return true }
        return false
    }
}
