import HTTP1

/// PostgREST's refusals of a function call (`src/PostgREST/Error.hs`), rendered like every
/// other `/rest/v1` error by `RestErrorMapping`.
extension RestError {
    /// `PGRST202`, 404: no function with this name and these parameter names. PostgREST's own
    /// sentences, so code written against Supabase that matches on them keeps working.
    static func unknownFunction(_ name: String, keys: [String]) -> RestError {
        let name = RestRPCCall.cut(name)
        let keys = keys.map(RestRPCCall.cut)
        let message = keys.isEmpty
            ? "Could not find the function public.\(name) without parameters in the schema cache"
            : "Could not find the function public.\(name)(\(keys.joined(separator: ", "))) in the schema cache"
        let searched = switch keys.count {
        case 0: "without parameters"
        case 1: "with parameter \(keys[0])"
        default: "with parameters \(keys.joined(separator: ", "))"
        }
        let hint = RestRPCFunction(rawValue: name).map { "Perhaps you meant to call the function \($0.signature)" }
            ?? "The functions are: \(RestRPCFunction.signatures)."
        return RestError(status: .notFound, code: .unknownFunction, message: message,
                         details: "Searched for the function public.\(name) \(searched) or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
                         hint: hint)
    }

    /// `PGRST102`, 400: a body that is not one JSON object.
    static func invalidBody(_ message: String) -> RestError {
        RestError(status: .badRequest, code: .invalidBody, message: message)
    }

    /// `PGRST107`, 415: parameters in a media type other than JSON.
    static func unsupportedMediaType(_ contentType: String) -> RestError {
        RestError(status: .unsupportedMediaType, code: .unsupportedMediaType,
                  message: "The request's Content-Type '\(RestRPCCall.cut(contentType))' is not supported here.",
                  hint: "Send the parameters as a JSON object with Content-Type: application/json.")
    }

    /// PostgreSQL's null_value_not_allowed (`22004`), 400: the functions are strict.
    static func nullParameter(_ parameter: String) -> RestError {
        RestError(status: .badRequest, code: .nullValueNotAllowed, message: "\(parameter) must not be null.",
                  hint: "Send the id of the item as a string.")
    }
}
