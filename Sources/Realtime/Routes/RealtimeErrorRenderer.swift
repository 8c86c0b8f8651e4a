import HTTP1
import HTTPServer
import JSON
import RouteKit

/// The one place `/realtime/v1` refusals are rendered (its routes' `.realtime` style:
/// the gateway's key check, the route's `vsn` check and the WebSocket handshake check, all
/// before the 101). Supabase Realtime answers a refused socket with `{"error": "<message>"}`
/// as `application/json` (`RealtimeWeb.UserSocket.handle_error`), so we do too: the official
/// clients only see a failed upgrade and its status, but anyone reading the body of a refusal
/// from this route reads what Supabase sends.
///
/// The failure is first rendered as the contract would (database errors mapped and logged,
/// internals never shown), then reshaped; status and headers (`Sec-WebSocket-Version` on a
/// 426, `Retry-After`) stay.
package struct RealtimeErrorRenderer: ErrorRendering {
    package init() {}

    package func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        Self.response(for: error, context: context)
    }

    static func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        let contract = APIErrorRenderer.contract(for: error)
        let body: JSONValue = ["error": .string(contract.message)]
        var response = (try? HTTPResponse.json(body, status: contract.status))
            ?? HTTPResponse.jsonError(status: contract.status, code: contract.code, message: contract.message)
        for field in contract.extraHeaders { response.headers.add(name: field.name, value: field.value) }
        return response
    }
}

extension ErrorStyle {
    /// `/realtime/v1`: Supabase Realtime's `{"error"}` for a refused socket.
    package static let realtime = ErrorStyle("realtime")
}
