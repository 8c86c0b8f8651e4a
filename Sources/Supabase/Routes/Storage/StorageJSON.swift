import Domain
import HTTPServer
import JSON
import Store

/// Storage's JSON shapes for objects.
enum StorageJSON {
    /// Storage's `FileObject` (what `remove` answers per deleted object; supabase-swift decodes
    /// `name`, `bucket_id`, `owner`, `id`, `updated_at`, `created_at`, `last_accessed_at`,
    /// `metadata`).
    static func fileObject(_ object: StorageObjectStore.Object) -> JSONValue {
        [
            "name": .string(object.name),
            "bucket_id": .string(object.bucket),
            "owner": .string(object.owner.uuidString.lowercased()),
            "id": .string(object.id.uuidString.lowercased()),
            "created_at": .string(Timestamp.format(object.createdAt)),
            "updated_at": .string(Timestamp.format(object.updatedAt)),
            "last_accessed_at": .string(Timestamp.format(object.updatedAt)),
            "metadata": [
                "eTag": .string("\"\(object.hash)\""),
                "size": .number(Double(object.size)),
                "mimetype": .string(object.contentType),
                "lastModified": .string(Timestamp.format(object.updatedAt)),
                "contentLength": .number(Double(object.size)),
                "httpStatusCode": 200,
            ],
        ]
    }
}
