import Domain
import Foundation
import Postgres

/// Named objects of the Storage buckets (`storage_objects`, migration 0014). The bytes live in
/// `avatars`, content-addressed, so names of the same image share one stored copy.
///
/// Who may change what: anyone signed in may create a name; only its owner (the uploader) or an
/// admin may overwrite or delete it. Every write is one transaction that locks the name's row,
/// so a refused attempt changes nothing and two writers of one name are ordered.
public struct StorageObjectStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// One object's metadata (the bytes are fetched separately, by hash).
    public struct Object: Sendable, Equatable {
        public var id: UUID
        public var bucket: String
        public var name: String
        public var owner: UUID
        public var hash: String
        public var contentType: String
        public var size: Int
        public var createdAt: Date
        public var updatedAt: Date
    }

    /// What an upload may do to an existing name.
    public enum WriteMode: Sendable {
        /// `POST` without `x-upsert`: only a new name (an existing one → `object_exists`).
        case create
        /// `POST` with `x-upsert: true`: a new name, or overwrite one the caller may change.
        case upsert
        /// `PUT`: overwrite an existing name the caller may change (none → 404).
        case overwrite
    }

    /// The caller of a write, for the owner-or-admin rule.
    public struct Writer: Sendable {
        public var id: UUID
        public var isAdmin: Bool

        public init(id: UUID, isAdmin: Bool) {
            self.id = id
            self.isAdmin = isAdmin
        }

        func mayChange(ownedBy owner: UUID) -> Bool { isAdmin || owner == id }
    }

    /// An image already validated by the caller: its SHA-256 hex, sniffed type and bytes.
    public struct Image: Sendable {
        public var hash: String
        public var contentType: String
        public var bytes: Data

        public init(hash: String, contentType: String, bytes: Data) {
            self.hash = hash
            self.contentType = contentType
            self.bytes = bytes
        }
    }

    static let columns = """
        o.id, o.bucket, o.name, o.owner, o.hash, a.content_type, octet_length(a.bytes) AS size, o.created_at, o.updated_at
        """

    public func find(bucket: String, name: String) throws -> Object? {
        try pool.query("""
            SELECT \(unsafeSQL: Self.columns) FROM storage_objects o JOIN avatars a ON a.hash = o.hash
            WHERE o.bucket = \(bucket) AND o.name = \(name)
            """).first.map(Self.decode)
    }

    /// Stores `image` under `name` as `mode` allows; returns the object's id (kept when a name
    /// is overwritten).
    public func write(bucket: String, name: String, image: Image, by writer: Writer, mode: WriteMode) throws -> UUID {
        try pool.withTransaction { connection in
            try connection.execute("""
                INSERT INTO avatars (hash, content_type, bytes) VALUES (\(image.hash), \(image.contentType), \(image.bytes))
                ON CONFLICT (hash) DO NOTHING
                """)
            if mode != .overwrite {
                // Waits for a concurrent insert of the same name; does nothing if that one commits.
                let created = try connection.query("""
                    INSERT INTO storage_objects (bucket, name, owner, hash) VALUES (\(bucket), \(name), \(writer.id), \(image.hash))
                    ON CONFLICT (bucket, name) DO NOTHING RETURNING id
                    """)
                if let row = created.first { return try row.decode("id") }
            }
            let existing = try connection.query("""
                SELECT id, owner FROM storage_objects WHERE bucket = \(bucket) AND name = \(name) FOR UPDATE
                """)
            guard let row = existing.first else {
                if mode == .overwrite { throw DomainError.notFound("object") }
                // Deleted between the two statements: the client may simply retry.
                throw DomainError(.unavailable, .transactionConflict, "The object changed concurrently. Retry the upload.")
            }
            let id: UUID = try row.decode("id")
            guard mode != .create else {
                throw DomainError(.conflict, .objectExists, "The resource already exists",
                                  hint: "Send x-upsert: true (or PUT) to overwrite it.")
            }
            guard writer.mayChange(ownedBy: try row.decode("owner")) else { throw Self.notYours }
            try connection.execute("UPDATE storage_objects SET hash = \(image.hash), updated_at = now() WHERE id = \(id)")
            return id
        }
    }

    /// Deletes the named objects that exist, all or none: if any of them is not the caller's to
    /// delete, nothing is. Returns what was deleted (names that do not exist are skipped).
    public func delete(bucket: String, names: [String], by writer: Writer) throws -> [Object] {
        try pool.withTransaction { connection in
            let rows = try connection.query("""
                SELECT \(unsafeSQL: Self.columns) FROM storage_objects o JOIN avatars a ON a.hash = o.hash
                WHERE o.bucket = \(bucket) AND o.name = ANY(\(names))
                ORDER BY o.name
                FOR UPDATE OF o
                """).map(Self.decode)
            guard rows.allSatisfy({ writer.mayChange(ownedBy: $0.owner) }) else { throw Self.notYours }
            try connection.execute("DELETE FROM storage_objects WHERE id = ANY(\(rows.map(\.id)))")
            return rows
        }
    }

    static let notYours = DomainError(.forbidden, .forbidden, "Only the object's owner or an admin may change it.")

    static func decode(_ row: PostgresRow) throws -> Object {
        Object(id: try row.decode("id"), bucket: try row.decode("bucket"), name: try row.decode("name"),
               owner: try row.decode("owner"), hash: try row.decode("hash"), contentType: try row.decode("content_type"),
               size: try row.decode("size"), createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
    }
}
