import Foundation
import HTTP1
import HTTPServer
import JSON

/// One `POST /rest/v1/rpc/<name>` call, checked the way PostgREST checks it before anything
/// touches the database:
///
/// - the name and the body's keys pick the function: PostgREST finds a function by its name
///   *and* its parameter names, so an unknown name, a missing parameter or an extra one is the
///   same 404 `PGRST202`, with a hint naming the signature that exists;
/// - the body is one JSON object (`{}` when empty); anything else is 400 `PGRST102`, and a
///   media type other than JSON is 415 `PGRST107`;
/// - the value must read as its parameter's type, as PostgreSQL would cast it: not a uuid →
///   400 `22P02`, null → 400 `22004` (the functions are strict: there is nothing to claim);
/// - the query string carries no filters, ordering or column lists for these results: only
///   `select=*` (the whole row, which is what they return anyway) and `apikey` are accepted,
///   anything else is 400 `PGRST100` rather than silently ignored.
struct RestRPCCall: Sendable {
    let function: RestRPCFunction
    let id: UUID

    /// Values echoed in messages are cut here: the client's own, but a message stays a sentence.
    static let echoLimit = 100

    init(name: String, body: [UInt8], contentType: String?, query: QueryParameters) throws(RestError) {
        let parameters = try Self.parameters(body, contentType: contentType)
        for item in query where !(item.name == "apikey" || (item.name == "select" && item.value == "*")) {
            throw RestError.badQuery("'\(Self.cut(item.name))' is not supported on a function call.",
                                     details: "The functions take their parameters in the JSON body and return the whole row; only select=* is accepted in the query string.")
        }
        let keys = parameters.keys.sorted()
        guard let function = RestRPCFunction(rawValue: name), keys == [function.parameter] else {
            throw RestError.unknownFunction(name, keys: keys)
        }
        self.function = function
        switch parameters[function.parameter] {
        case .string(let text)?:
            guard let id = UUID(uuidString: text) else { throw RestError.invalidValue("uuid", Self.cut(text)) }
            self.id = id
        case .null?, nil:
            throw RestError.nullParameter(function.parameter)
        case let other?:
            throw RestError.invalidValue("uuid", Self.cut(Self.text(other)))
        }
    }

    private static func parameters(_ body: [UInt8], contentType: String?) throws(RestError) -> [String: JSONValue] {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return [:] }
        let mediaType = (contentType ?? "").split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" else { throw RestError.unsupportedMediaType(contentType ?? "") }
        do {
            try StrictJSON.check(body)
        } catch .duplicateKey(let key) {
            // Valid JSON, but which of the two values was meant is anyone's guess.
            throw RestError.invalidBody("The key '\(cut(key))' appears twice in the parameters; send it once.")
        } catch {
            throw RestError.invalidBody("Empty or invalid json")
        }
        guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else {
            throw RestError.invalidBody("Empty or invalid json")
        }
        guard case .object(let object) = parsed else {
            throw RestError.invalidBody("The parameters of a function call must be one JSON object.")
        }
        return object
    }

    private static func text(_ value: JSONValue) -> String {
        guard let data = try? JSONEncoder().encode(value) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    static func cut(_ text: String) -> String {
        text.count > echoLimit ? String(text.prefix(echoLimit)) + "…" : text
    }
}
