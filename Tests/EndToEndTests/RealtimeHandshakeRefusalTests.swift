import Foundation
import Testing

/// A refused `/realtime/v1/websocket` upgrade answers as Supabase Realtime does
/// (`RealtimeWeb.UserSocket.handle_error`): `{"error": "<message>"}`, `application/json`,
/// whichever check refused it — the gateway's key, the route's `vsn`, or the handshake
/// itself — with each check's own status.
@Suite struct RealtimeHandshakeRefusalTests {
    static let upgrade = ["Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="]
    static let key = AuthTestServer.publishableKey

    static func expectRealtimeShape(_ response: TestHTTPClient.Response, status: Int, error: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        let json = response.json
        #expect(json.map { Set($0.keys) } == ["error"], "\(String(decoding: response.body, as: UTF8.self))",
                sourceLocation: sourceLocation)
        #expect(json?["error"] as? String == error, sourceLocation: sourceLocation)
    }

    @Test func everyRefusalAnswersSupabaseRealtimesErrorShape() throws {
        let app = try AuthTestServer()
        let path = "/realtime/v1/websocket"
        Self.expectRealtimeShape(try app.request("GET", "\(path)?vsn=1.0.0", headers: Self.upgrade),
                                 status: 401, error: "No API key found in request.")
        Self.expectRealtimeShape(try app.request("GET", "\(path)?apikey=\(Self.key)x&vsn=1.0.0", headers: Self.upgrade),
                                 status: 401, error: "Invalid API key.")
        let badVsn = try app.request("GET", "\(path)?apikey=\(Self.key)&vsn=3.0.0", headers: Self.upgrade)
        #expect(badVsn.status == 400)
        #expect((badVsn.json?["error"] as? String)?.contains("vsn=1.0.0 and vsn=2.0.0") == true)
        #expect(badVsn.json.map { Set($0.keys) } == ["error"])
        Self.expectRealtimeShape(try app.request("GET", "\(path)?apikey=\(Self.key)&vsn=1.0.0"),
                                 status: 400, error: "Connection must include 'Upgrade'.")
        var oldVersion = Self.upgrade
        oldVersion["Sec-WebSocket-Version"] = "8"
        let version = try app.request("GET", "\(path)?apikey=\(Self.key)&vsn=2.0.0", headers: oldVersion)
        Self.expectRealtimeShape(version, status: 426, error: "Only WebSocket version 13 is supported.")
        #expect(version.header("Sec-WebSocket-Version") == "13")
        var shortKey = Self.upgrade
        shortKey["Sec-WebSocket-Key"] = "c2hvcnQ="
        Self.expectRealtimeShape(try app.request("GET", "\(path)?apikey=\(Self.key)&vsn=2.0.0", headers: shortKey),
                                 status: 400, error: "Sec-WebSocket-Key must be the base64 encoding of 16 bytes.")
    }
}
