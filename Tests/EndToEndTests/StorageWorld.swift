import Credentials
import Foundation
import Postgres
import Testing

/// A running server with an admin and two realtors signed in, speaking to `/storage/v1` the
/// way the Supabase clients do (apikey on every call, Bearer token when signed in).
struct StorageWorld {
    let app: AuthTestServer
    let admin: String
    let rita: String
    let sam: String

    init() throws {
        app = try AuthTestServer()
        admin = try app.login().access
        _ = try app.createRealtor("rita@example.com", adminToken: admin)
        _ = try app.createRealtor("sam@example.com", adminToken: admin)
        rita = try app.login("rita@example.com").access
        sam = try app.login("sam@example.com").access
    }

    static let png = AuthAvatarTests.png
    /// A real 16×16 baseline JPEG (the same as DomainTests' AvatarImageTests).
    static let jpeg = [UInt8](Data(base64Encoded: """
        /9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z
        """, options: .ignoreUnknownCharacters) ?? Data())

    /// Storage calls carry the publishable key; `token` nil is anonymous (key only).
    func call(_ method: String, _ path: String, token: String?, body: [UInt8] = [], headers: [String: String] = [:],
              apikey: String? = AuthTestServer.publishableKey) throws -> TestHTTPClient.Response {
        var headers = headers
        if let apikey { headers["apikey"] = apikey }
        return try app.request(method, path, token: token, body: body, headers: headers)
    }

    func upload(_ name: String, _ bytes: [UInt8], token: String?, method: String = "POST",
                headers: [String: String] = ["Content-Type": "image/png"]) throws -> TestHTTPClient.Response {
        try call(method, "/storage/v1/object/avatars/\(name)", token: token, body: bytes, headers: headers)
    }

    func publicGet(_ name: String, headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        try app.request("GET", "/storage/v1/object/public/avatars/\(name)", headers: headers)
    }

    /// A multipart body as supabase-swift builds it (empty field name) or storage3 (`file`).
    static func multipart(_ bytes: [UInt8], fieldName: String = "", boundary: String = "alamofire.boundary.0123abcd")
        -> (body: [UInt8], contentType: String) {
        let head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(fieldName)\"; filename=\"a.png\"\r\n"
            + "Content-Type: text/plain;charset=UTF-8\r\n\r\n"
        return (Array(head.utf8) + bytes + Array("\r\n--\(boundary)--\r\n".utf8), "multipart/form-data; boundary=\(boundary)")
    }

    /// Storage's error shape: `statusCode` a string.
    static func storageError(_ response: TestHTTPClient.Response) -> (statusCode: String?, error: String?) {
        (response.json?["statusCode"] as? String, response.json?["error"] as? String)
    }

    func count(_ sql: PostgresQuery) throws -> Int {
        try app.database.pool.query(sql).first?.decode("count") ?? -1
    }

    var objectCount: Int { get throws { try count("SELECT count(*)::int AS count FROM storage_objects") } }
    var imageCount: Int { get throws { try count("SELECT count(*)::int AS count FROM avatars") } }

    static func sha256(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }
}
