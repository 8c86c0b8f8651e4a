import Domain
import HTTP1
import HTTPServer
import RouteKit
import Store

/// Serving an object: its sniffed `Content-Type`, a strong `ETag` (the SHA-256 of its bytes),
/// `304 Not Modified` for a matching `If-None-Match`, and caching by what the name promises.
/// `X-Content-Type-Options: nosniff` is on every response the server sends.
///
/// - A content-addressed name (`<sha256>` or `<sha256>.png|.jpg|.jpeg`) can only ever hold
///   those bytes (uploads are checked), so it is cached for a year as `immutable`.
/// - Any other name can be overwritten, so caches keep it `shortMaxAge` seconds and then
///   revalidate with the ETag (a cheap 304).
/// Public downloads are `public`; the signed-in route's answers are `private` (they were
/// asked for with credentials).
enum StorageDownload {
    enum Audience {
        case anyone, signedIn
    }

    static let shortMaxAge = 60
    static let immutableMaxAge = 31_536_000

    static func respond(_ request: HTTPRequest, at location: (bucket: String, name: StorageObjectName), audience: Audience,
                        store: StorageObjectStore, avatars: AvatarStore) throws -> HandlerReply {
        guard let object = try store.find(bucket: location.bucket, name: location.name.description) else {
            throw StorageRoutes.objectNotFound
        }
        let etag = "\"\(object.hash)\""
        let scope = audience == .anyone ? "public" : "private"
        let caching = location.name.contentHash == object.hash
            ? "\(scope), max-age=\(immutableMaxAge), immutable" : "\(scope), max-age=\(shortMaxAge)"
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": caching]
        if let ifNoneMatch = request.headers["If-None-Match"], IfNoneMatch.matches(ifNoneMatch, etag: etag) {
            return .response(HTTPResponse(status: .notModified, headers: headers))
        }
        // Image rows are never deleted (migration 0004), so the hash just read still has its bytes.
        guard let image = try avatars.get(hash: object.hash) else { throw StorageRoutes.objectNotFound }
        headers.set(name: "Content-Type", value: image.contentType)
        return .response(HTTPResponse(status: .ok, headers: headers, body: Array(image.bytes)))
    }
}
