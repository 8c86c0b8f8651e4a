import Foundation
import Testing
import TestSupport

/// Android wake-ups through FCM HTTP v1 against a local fake of Google's token endpoint and
/// `messages:send`, which verifies the service account's RS256 assertion.
@Suite struct PushFCMTests {
    static let android = "fcm-token-for-a-phone-0001"

    @Test func anAndroidDeviceGetsADataMessageWithOneCachedAccessTokenAndUnregisteredRemovesIt() throws {
        let fcm = try FCMFake()
        let world = try PushWorld(fcm: fcm)
        let registered = try world.app.request("POST", "/v1/devices", token: world.a.token,
                                               json: ["platform": "android", "token": Self.android, "app_id": "com.example.dispatch"])
        let device = try #require(registered.json?["id"] as? String)
        try world.patchTask("One")
        try world.settle()
        func sends() throws -> [FCMFake.Request] { try fcm.requests().filter { $0.path.hasSuffix("messages:send") } }
        #expect(try world.wait { try sends().filter { $0.status == 200 }.count == 1 })
        let sent = try #require(try sends().last)
        let message = try #require((try JSONSerialization.jsonObject(with: Data(sent.body.utf8)) as? [String: Any])?["message"] as? [String: Any])
        #expect(message["token"] as? String == Self.android)
        #expect((message["android"] as? [String: Any])?["priority"] as? String == "high")
        #expect((message["data"] as? [String: Any])?["dispatch"] as? String == "changed")
        // A revoked access token (401) is replaced once; then the token is no longer known.
        try fcm.script([Self.android: ["401", "404:UNREGISTERED"]])
        try world.reset()
        try world.patchTask("Two")
        try world.settle()
        #expect(try world.wait { try world.scalar("SELECT count(*)::text FROM push_devices WHERE id = '\(device)'") == "0" })
        let tokens = try fcm.requests().filter { $0.path == "/token" }
        #expect(tokens.count == 2 && tokens.allSatisfy { $0.status == 200 && $0.problem == nil })
        #expect(try sends().map(\.status) == [200, 401, 404])
        #expect(world.sender.counts.oauthTokens == 2 && world.sender.counts.devicesRemoved == 1)
        // Token fetches and messages, five requests, all on one kept connection.
        let connections = try fcm.requests().map(\.connection)
        #expect(connections.count == 5 && Set(connections).count == 1, "connections: \(connections)")
    }
}
