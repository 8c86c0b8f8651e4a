import Foundation
import Testing

/// JSON bodies are UTF-8 (RFC 8259 §8.1) with each key once per object, on every JSON route.
/// Before, a UTF-16 body was decoded and stored (201), and `{"title":"a","title":"b"}` kept one.
@Suite struct JSONBodyStrictnessTests {
    static func utf16(_ text: String, bom: Bool) -> [UInt8] {
        (bom ? [0xFF, 0xFE] : []) + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    @Test func bodyThatIsNotUTF8Answers400InvalidEncoding() throws {
        let world = try ResourceWorld(extraRoles: [])
        let text = #"{"title":"Call"}"#
        let bodies: [[UInt8]] = [Self.utf16(text, bom: true), Self.utf16(text, bom: false), [0xEF, 0xBB, 0xBF] + Array(text.utf8),
                                 Array(#"{"title":"Ca"#.utf8) + [0xC3, 0x28] + Array(#"ll"}"#.utf8)]
        for body in bodies {
            let response = try world.app.request("POST", "/v1/tasks", token: world.token(.admin), body: body,
                                                 headers: ["Content-Type": "application/json"])
            #expect(response.status == 400, "\(body.prefix(4))")
            #expect(response.json?["code"] as? String == "invalid_encoding")
        }
        let tasks = try world.request("GET", "/v1/tasks", as: .admin)
        #expect(ResourceWorld.ids(in: tasks).isEmpty)
    }

    @Test func charsetOtherThanUTF8Answers415AndUTF8Passes() throws {
        let world = try ResourceWorld(extraRoles: [])
        let body = Array(#"{"title":"Call"}"#.utf8)
        for contentType in ["application/json; charset=utf-16", "application/json;charset=\"latin1\""] {
            let response = try world.app.request("POST", "/v1/tasks", token: world.token(.admin), body: body,
                                                 headers: ["Content-Type": contentType])
            #expect(response.status == 415, "\(contentType)")
            #expect(response.json?["code"] as? String == "unsupported_media_type")
        }
        for contentType in ["application/json; charset=utf-8", "application/json;charset=\"UTF-8\""] {
            let response = try world.app.request("POST", "/v1/tasks", token: world.token(.admin), body: body,
                                                 headers: ["Content-Type": contentType])
            #expect(response.status == 201, "\(contentType)")
        }
    }

    @Test(arguments: [(#"{"title":"a","title":"b"}"#, "title"), (#"{"title":"a","\u0074itle":"b"}"#, "title"),
                      (#"{"mutations":[{"op":"upsert","op":"delete"}]}"#, "op")])
    func duplicateKeyAnswers400NamingIt(_ body: String, _ key: String) throws {
        let world = try ResourceWorld(extraRoles: [])
        let path = body.contains("mutations") ? "/v1/sync/push" : "/v1/tasks"
        let response = try world.app.request("POST", path, token: world.token(.admin), body: Array(body.utf8),
                                             headers: ["Content-Type": "application/json"])
        #expect(response.status == 400, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.json?["code"] as? String == "duplicate_key")
        #expect((response.json?["details"] as? [String: Any])?["key"] as? String == key)
    }
}
