import Foundation
import Testing

/// Avatar upload (magic-byte checked, size-limited) and immutable, unauthenticated serving.
@Suite struct AuthAvatarTests {
    /// A real 16×16 PNG (CPython's imghdr test image; the same as DomainTests' AvatarImageTests).
    static let png = [UInt8](Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAMAAAAoLQ9TAAAAIGNIUk0AAHomAACAhAAA+gAAAIDoAAB1MAAA6mAAADqYAAAXcJy6UTwAAAHFUExURQAAAE6NwEqGujxxnjdolgAAAAAAAAAAAAAAAAAAAE6PxEyKv0iFtkN9rT10oTlsljZmkAAAAAAAAFKRxv3dSvnVPgAAADJghwAAAP3VNgAAADVokgAAAOzORQAAADZpkxsxRQAAAAAAAOLDRf3ZQQAAAEaBsjZnkQAAAPLhbv3pav3LG0N9rhwyS/Xjb/PBGkB1oz1zogAAAMKaEgAAAAAAAAAAAAAAAAAAAOjHPevFNOvCKuu+Ieu7GMabEgAAAAAAAAAAAAAAAAAAAAAAAAAAAP3eTgAAAAAAAAAAAAAAAPHQP/rTOf3SL/rHGcCXEgAAAAAAAAAAAAAAAAAAAAAAAEiDtER+rUB4p0yKvP///0V/r0F5qD50ojpvmzZplEmFt0aAsUJ7qj51oztwnTdqljhsl0+NwUuIu0R9rUB4pj1zoDltmf/iVVCPw0yJvEiEtT10of/eS//aQU2LvkaAsDtwnP/aQv/WN//TLUqHuUeBskN8qz92pf/XOP/PI//mYf/jV//fTf/bQv/TLv/PJP/rbP/nYf/bQ//XOf/MHDpwnP/nYv/jWP/fTv/TL//bRP/XOv/TMP/QJf/YOv/UMP/QJpJJAAIAAABWdFJOUwCv7feSCwMoQRV+oKGjp6qqSBi994IKtkPtJPdPiD22XExHa/dG96pOpvf311uzwm/3S3o0CCE8NaqpqampeSACCRMSLB73QBwFAUzM99h7Ox1CRTgf+DIQcQAAAAFiS0dEWgO7paIAAAD1SURBVBjTY2AAAkamsPAIZhZWNgYoiIyKjomNi2dnhQkkJCYlp6TGc3CCeVzcPLx8/AJp8fGCQiC+cHpGWGZWdk48UCBXRFSMIS+/IDqmMA7IF5coKpaUYihJKE1KLkuNlxaXkS2vqJRjqKquqZVXUBRU4lBWqausV2VQy8xS19DUamhsaq5radVWYtCJKdTVa2tvbOrobGnt0udgMDDsNmrr6e3r6Oxv7eoyNmEwNTO3APItraxtbG3tOOwZHBydnHv7JkycNLmLw8LFFeJ6twlTpk6L0nb3cPT0Agt4+/hO6/LzD3CGec400CJIKTgk1BTIBgBAYkJ/yC2b5QAAACV0RVh0ZGF0ZTpjcmVhdGUAMjAxNC0wMS0yNlQyMDo1OTozNyswMjowMPuaB3cAAAAldEVYdGRhdGU6bW9kaWZ5ADIwMTQtMDEtMjZUMjA6NTk6MDArMDI6MDDB74amAAAAAElFTkSuQmCC") ?? Data())

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
        #expect(served.header("X-Content-Type-Options") == "nosniff")

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

    /// A PNG signature followed by HTML, or a real PNG with a page after its end, was stored and
    /// served; now the file is walked to its end and such uploads are 422 `invalid_image`.
    @Test(arguments: [
        Array(png.prefix(8)) + Array("<html><script>alert(1)</script></html>".utf8),
        png + Array("<html><script>alert(1)</script></html>".utf8),
        Array(png.dropLast(12)),
    ])
    func polyglotOrBrokenPNGAnswers422(body: [UInt8]) throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let response = try app.request("PUT", "/v1/me/avatar", token: tokens.access, body: body,
                                       headers: ["Content-Type": "image/png"])
        #expect(response.status == 422)
        #expect(response.json?["code"] as? String == "invalid_image")
        #expect(try app.request("GET", "/v1/me", token: tokens.access).json?["avatar_hash"] is NSNull)
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
