import Accounts
import Credentials
import Domain
import Foundation
import HTTP1
import Store

/// The image an upload to `/storage/v1/object/<bucket>/<name>` carries, read the two ways
/// clients send it and checked like every avatar:
/// - `multipart/form-data` (supabase-swift: the file part's field name is empty; storage3:
///   named `file`): exactly one part with a `filename` (or an empty name) is the file; the only
///   other parts allowed are Storage's small text fields `cacheControl` and `metadata`, which
///   are accepted and not stored (see docs/app-developers/storage.md);
/// - anything else: the body is the file's bytes.
/// The declared Content-Type (storage3 defaults to `text/plain;charset=UTF-8`) is not
/// trusted: the bytes must be a complete, well-formed PNG or JPEG (`AvatarImage`), at most
/// `maxFileBytes`.
enum StorageUpload {
    static let maxFileBytes = AuthService.avatarMaxBytes
    /// Room for the multipart envelope around a file of the maximum size.
    static let multipartAllowance = 64 * 1024
    /// What the server's body limit must allow (the server's body limit).
    static let maxRequestBytes = maxFileBytes + multipartAllowance
    static let textFields: Set<String> = ["cacheControl", "metadata"]
    static let maxTextFieldBytes = 8 * 1024

    static func image(_ request: HTTPRequest) throws -> StorageObjectStore.Image {
        let file = try fileBytes(request)
        guard file.count <= maxFileBytes else {
            throw DomainError(.contentTooLarge, .bodyTooLarge, "Payload too large: files are limited to \(maxFileBytes) bytes.")
        }
        let bytes = Array(file)
        guard AvatarImage.sniff(bytes) != nil else { throw notAnImage }
        let format: AvatarImage.Format
        do {
            format = try AvatarImage.validate(bytes)
        } catch .notAnImage {
            throw notAnImage
        } catch .malformed(let reason) {
            throw DomainError(.invalidInput, .invalidImage, "The file is not a well-formed image: \(reason).")
        }
        return .init(hash: SHA256.hex(bytes), contentType: format.rawValue, bytes: Data(bytes))
    }

    static let notAnImage = DomainError(
        .unsupportedMediaType, .unsupportedMediaType, "Only PNG and JPEG images can be stored (checked from the file's bytes).")

    /// The file's bytes: the multipart file part, or the whole body.
    static func fileBytes(_ request: HTTPRequest) throws -> ArraySlice<UInt8> {
        guard let contentType = request.headers["Content-Type"],
              contentType.trimmingASCIIWhitespace().lowercasedASCII().hasPrefix("multipart/") else {
            return request.body[...]
        }
        let parts: [MultipartFormData.Part]
        do {
            let boundary = try MultipartFormData.boundary(contentType: contentType)
            parts = try MultipartFormData.parse(request.body, boundary: boundary)
        } catch {
            throw malformed("The multipart body cannot be read: \(error).")
        }
        let files = parts.filter { $0.filename != nil || $0.name.isEmpty }
        guard files.count == 1, let file = files.first else {
            throw malformed("The multipart body must hold exactly one file part (it holds \(files.count)).")
        }
        for part in parts where part.filename == nil && !part.name.isEmpty {
            guard textFields.contains(part.name), part.body.count <= maxTextFieldBytes else {
                throw malformed("Unexpected form field \"\(part.name)\": only the file, cacheControl and metadata are read.")
            }
        }
        return file.body
    }

    static func malformed(_ message: String) -> DomainError {
        DomainError(.badRequest, .invalidMultipart, message)
    }
}
