import Foundation
import Testing

/// Avatar upload (magic-byte checked, size-limited) and immutable, unauthenticated serving.
@Suite struct AuthAvatarTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)

    @Test func avatarUploadServeAndConditionalGet() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let upload = try app.request("PUT", "/v1/me/avatar", token: tokens.access, body: Self.png,
                                     headers: ["Content-Type": "image/png"])
        #expect(upload.status == 200)
        let hash = try #require(upload.json?["avatar_hash"] as? String)
        #expect(hash.count == 64)
        #expect(upload.json?["version"] as? Int == 2)

        let served = try app.request("GET", "/v1/avatars/\(hash)")
        #expect(served.status == 200)
        #expect(served.body == Self.png)
        #expect(served.header("Content-Type") == "image/png")
        #expect(served.header("ETag") == "\"\(hash)\"")
        #expect(served.header("Cache-Control") == "public, max-age=31536000, immutable")

        let cached = try app.request("GET", "/v1/avatars/\(hash)", headers: ["If-None-Match": "\"\(hash)\""])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        #expect(try app.request("GET", "/v1/avatars/\(String(repeating: "0", count: 64))").status == 404)
    }

    @Test(arguments: [
        ("image/png", [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3] as [UInt8]),
        ("image/gif", Array("GIF89a....".utf8)),
        ("image/png", Array("<svg></svg>".utf8)),
    ])
    func avatarWithWrongTypeAnswers415(contentType: String, body: [UInt8]) throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let response = try app.request("PUT", "/v1/me/avatar", token: tokens.access, body: body,
                                       headers: ["Content-Type": contentType])
        #expect(response.status == 415)
        #expect(response.json?["code"] as? String == "unsupported_media_type")
    }

    @Test func avatarOver5MiBAnswers413() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let body = [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 5 * 1024 * 1024)
        let response = try app.request("PUT", "/v1/me/avatar", token: tokens.access, body: body,
                                       headers: ["Content-Type": "image/jpeg"])
        #expect(response.status == 413)
    }

    @Test func avatarUploadRequiresAuthentication() throws {
        let app = try AuthTestServer()
        let response = try app.request("PUT", "/v1/me/avatar", body: Self.png, headers: ["Content-Type": "image/png"])
        #expect(response.status == 401)
    }
}
