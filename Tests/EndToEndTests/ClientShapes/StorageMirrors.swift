import Foundation
import HTTPServer
import JSON

/// supabase-swift 2.55.1's Storage types, decoded with `JSONDecoder.supabase()`
/// (`JSONDecoder.defaultStorageDecoder`, `Sources/Storage/Codable.swift`; no key strategy).
enum StorageMirrors {
    /// `StorageError` (`Sources/Storage/StorageError.swift`): every non-2xx body
    /// (`StorageApi.execute`); one that does not decode becomes a generic `HTTPError`.
    struct StorageError: Decodable {
        var statusCode: String?
        var message: String
        var error: String?
    }

    /// `_uploadOrUpdate`'s private `UploadResponse` (`Sources/Storage/StorageFileApi.swift`),
    /// from which the client builds `FileUploadResponse(id: Id, path:, fullPath: Key)`.
    struct UploadResponse: Decodable {
        // swiftlint:disable:next identifier_name
        let Key: String
        // swiftlint:disable:next identifier_name
        let Id: String
    }

    /// `FileObject` (`Sources/Storage/Types.swift`): what `remove(paths:)` and `list` answer.
    struct FileObject: Decodable {
        var name: String
        var bucketId: String?
        var owner: String?
        var id: UUID?
        var updatedAt: Date?
        var createdAt: Date?
        var lastAccessedAt: Date?
        var metadata: [String: JSONValue]?
        var buckets: JSONValue?

        enum CodingKeys: String, CodingKey {
            case name, owner, id, metadata, buckets
            case bucketId = "bucket_id"
            case updatedAt = "updated_at"
            case createdAt = "created_at"
            case lastAccessedAt = "last_accessed_at"
        }
    }
}
