import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// Avatar upload and download. Images are content-addressed (SHA-256 hex), hence immutable,
/// which lets GET be cached forever and needs no authentication (the hash is unguessable and
/// only shared with people who can see the user).
enum AvatarRoutes {
    static var maxBytes: Int { AuthService.avatarMaxBytes }

    static func register(on router: inout Router, auth: AuthService) {
        router.put("/v1/me/avatar") { request, context in
            let user = try auth.currentUser(context)
            guard request.body.count <= maxBytes else {
                throw DomainError(.contentTooLarge, .bodyTooLarge, "Avatars are limited to \(maxBytes) bytes.")
            }
            let declared = request.headers["Content-Type"]?.split(separator: ";").first?
                .trimmingASCIIWhitespace().lowercasedASCII()
            // 415 when the first bytes are not the declared type, then the whole file is walked.
            guard let format = AvatarImage.sniff(request.body), declared == format.rawValue else { throw unsupportedMediaType }
            try validateStructure(request.body)
            let hash = SHA256.hex(request.body)
            try auth.avatars.put(hash: hash, contentType: format.rawValue, bytes: Data(request.body))
            guard let updated = try auth.users.setAvatarHash(userID: user.id, hash: hash) else {
                throw DomainError.notFound("user")
            }
            return .response(try .json(JSONOutput.user(updated)))
        }
    }

    /// Downloads by hash: anonymous (see above), so `<img>` tags and caches can fetch them.
    static func registerDownload(on router: inout Router, auth: AuthService) {
        router.get("/v1/avatars/{hash}") { request, context in
            let hash = try context.pathParameter("hash")
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                  let avatar = try auth.avatars.get(hash: hash)
            else { throw DomainError.notFound("avatar") }
            let etag = "\"\(hash)\""
            var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "public, max-age=31536000, immutable"]
            if let ifNoneMatch = request.headers["If-None-Match"], IfNoneMatch.matches(ifNoneMatch, etag: etag) {
                return .response(HTTPResponse(status: .notModified, headers: headers))
            }
            headers.set(name: "Content-Type", value: avatar.contentType)
            return .response(HTTPResponse(status: .ok, headers: headers, body: Array(avatar.bytes)))
        }
    }

    static let unsupportedMediaType = DomainError(
        .unsupportedMediaType, .unsupportedMediaType, "Avatars must be PNG or JPEG images sent with a matching Content-Type.")

    /// A file that starts as a PNG/JPEG must be a complete, well-formed one (AvatarImage):
    /// broken, truncated, or anything after its end (a polyglot) → 422 `invalid_image`.
    static func validateStructure(_ body: [UInt8]) throws {
        do {
            _ = try AvatarImage.validate(body)
        } catch .notAnImage {
            throw unsupportedMediaType
        } catch .malformed(let reason) {
            throw DomainError(.invalidInput, .invalidImage, "The avatar is not a well-formed image: \(reason).")
        }
    }
}
