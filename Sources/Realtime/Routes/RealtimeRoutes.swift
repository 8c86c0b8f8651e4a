import Domain
import HTTPServer

/// `GET /realtime/v1/websocket?apikey=…&vsn=1.0.0|2.0.0`: Supabase Realtime's socket.
/// The publishable key is checked by `SupabaseGateway` (clients put it in the URL); users
/// authenticate per channel with the join's `access_token`, so the route itself needs no
/// `Authorization` header (browsers cannot send one on a WebSocket).
package enum RealtimeRoutes {
    /// Refused upgrades answer in Supabase Realtime's shape (the `.realtime` style).
    package static let errorRenderer: any ErrorRendering = RealtimeErrorRenderer()

    package static func register(on router: inout Router, realtime: RealtimeService) {
        router.get("/realtime/v1/websocket") { _, context in
            guard let connection = realtime.connection(vsn: context.query["vsn"]) else {
                throw DomainError.invalidParameter(
                    "vsn", "This server speaks the Phoenix serializers vsn=1.0.0 and vsn=2.0.0 (2.0.0: supabase-swift, supabase-js).")
            }
            return .webSocket(connection)
        }
    }
}
