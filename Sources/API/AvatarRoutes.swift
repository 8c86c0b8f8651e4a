import Credentials
import Foundation
import HTTP1
import HTTPServer
import Store

/// Avatar upload and download. Images are content-addressed (SHA-256 hex), hence immutable,
/// which lets GET be cached forever and needs no authentication (the hash is unguessable and
/// only shared with people who can see the user).
enum AvatarRoutes {
    /// Avatar uploads may be up to 5 MiB. The server's global body limit is raised to this
    /// (`APIApplication.maxRequestBodyBytes`); JSON routes enforce their own 1 MiB.
    static let maxBytes = 5 * 1024 * 1024

    static func register(on router: inout Router, auth: AuthService) {
        router.put("/v1/me/avatar") { request, context in
            let user = try auth.currentUser(context)
            guard request.body.count <= maxBytes else {
                throw HTTPError(status: .contentTooLarge, code: "body_too_large",
                                message: "Avatars are limited to \(maxBytes) bytes.")
            }
            let declared = request.headers["Content-Type"]?.split(separator: ";").first?
                .trimmingASCIIWhitespace().lowercasedASCII()
            guard let sniffed = imageType(request.body), declared == sniffed else {
                throw HTTPError(status: .unsupportedMediaType, code: "unsupported_media_type",
                                message: "Avatars must be PNG or JPEG images sent with a matching Content-Type.")
            }
            let hash = SHA256.hex(request.body)
            try auth.avatars.put(hash: hash, contentType: sniffed, bytes: Data(request.body))
            guard let updated = try auth.users.setAvatarHash(userID: user.id, hash: hash) else {
                throw HTTPError.notFound("No such user.")
            }
            return .response(try .json(JSONOutput.user(updated)))
        }
        router.get("/v1/avatars/{hash}") { request, context in
            let hash = try context.pathParameter("hash")
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                  let avatar = try auth.avatars.get(hash: hash)
            else { throw HTTPError.notFound("No such avatar.") }
            let etag = "\"\(hash)\""
            var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "public, max-age=31536000, immutable"]
            if let ifNoneMatch = request.headers["If-None-Match"],
               ifNoneMatch.split(separator: ",").contains(where: { tag in
                   let tag = tag.trimmingASCIIWhitespace()
                   return tag == "*" || tag == etag || tag == "W/" + etag
               }) {
                return .response(HTTPResponse(status: .notModified, headers: headers))
            }
            headers.set(name: "Content-Type", value: avatar.contentType)
            return .response(HTTPResponse(status: .ok, headers: headers, body: Array(avatar.bytes)))
        }
    }

    /// The image type from the magic bytes: PNG's 8-byte signature, JPEG's SOI + marker.
    static func imageType(_ body: [UInt8]) -> String? {
        if body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if body.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        return nil
    }
}
