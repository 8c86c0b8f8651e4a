import Foundation
import Postgres

/// Avatar images, content-addressed by the SHA-256 hex of their bytes (immutable rows).
public struct AvatarStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Avatar: Sendable {
        public var contentType: String
        public var bytes: Data
    }

    /// Stores the image unless an identical one is already there.
    public func put(hash: String, contentType: String, bytes: Data) throws {
        try pool.execute("""
            INSERT INTO avatars (hash, content_type, bytes) VALUES (\(hash), \(contentType), \(bytes))
            ON CONFLICT (hash) DO NOTHING
            """)
    }

    public func get(hash: String) throws -> Avatar? {
        guard let row = try pool.query("SELECT content_type, bytes FROM avatars WHERE hash = \(hash)").first else {
            return nil
        }
        return Avatar(contentType: try row.decode("content_type"), bytes: try row.decode("bytes"))
    }
}
