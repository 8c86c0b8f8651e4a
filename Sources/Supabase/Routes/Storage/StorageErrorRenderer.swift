import Domain
import HTTP1
import HTTPServer
import JSON
import RouteKit

/// The one place `/storage/v1` errors are rendered (`APIErrorRenderer`'s `.storage` style, for
/// the gateway and the family's routes):
/// Supabase Storage's shape `{"statusCode": "404", "error": "not_found", "message": "…"}`, with
/// `statusCode` a string, which is what supabase-swift's `StorageError` and storage3's
/// `StorageApiError` decode.
///
/// The failure is first rendered as the contract would (`APIErrorRenderer`: database errors
/// mapped and logged, internals never shown), then reshaped: `error` is the contract's named
/// code, the HTTP status is the real one — except an upload to a taken name, which answers as
/// Storage does, HTTP 400 with `statusCode` "409" and `error` "Duplicate".
package struct StorageErrorRenderer: ErrorRendering {
    package init() {}

    package func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        Self.response(for: error, context: context)
    }

    static func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        let contract = APIErrorRenderer.contract(for: error)
        var status = contract.status
        var statusCode = String(contract.status.code)
        var name = contract.code
        if contract.code == ErrorCode.objectExists.rawValue {
            status = .badRequest
            statusCode = "409"
            name = "Duplicate"
        }
        let body: JSONValue = ["statusCode": .string(statusCode), "error": .string(name), "message": .string(contract.message)]
        var response = (try? HTTPResponse.json(body, status: status))
            ?? HTTPResponse.jsonError(status: status, code: name, message: contract.message)
        for field in contract.extraHeaders { response.headers.add(name: field.name, value: field.value) }
        return response
    }
}
