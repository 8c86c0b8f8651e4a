import Foundation

/// `manifest.json`, the first member of a backup file (docs/operators/backups.md): what the
/// dump must contain, so `restore --verify` can prove a restore complete. Its exact bytes are
/// authenticated by `manifest.hmac` (BackupKeyring); it is data only: nothing in it is run.
package struct BackupManifest: Codable, Equatable {
    /// Format 2 is signed and carries no SQL; format 1 (unsigned, with a `roles.sql` that a
    /// restore used to run) is refused.
    package static let currentFormat = "dispatch-backup/2"
    package static let manifestName = "manifest.json"
    package static let signatureName = "manifest.hmac"
    package static let dumpName = "database.dump"

    package struct Migration: Codable, Equatable {
        package var version: Int
        package var name: String
        package var checksum: String
    }

    package struct Member: Codable, Equatable {
        package var name: String
        package var bytes: Int
        package var sha256: String
    }

    package var format: String
    /// UTC, ISO 8601, when the dump's snapshot was taken.
    package var createdAt: String
    /// The dump's snapshot (`pg_current_snapshot()`): exactly the transactions whose writes
    /// it holds; later ones are not in the backup.
    package var snapshot: String
    package var database: String
    /// `server_version` of the PostgreSQL that was dumped, and the pg_dump that dumped it.
    package var serverVersion: String
    package var serverVersionNum: Int
    package var pgDumpVersion: String
    /// The highest applied migration (0 when none) and every applied one.
    package var schemaVersion: Int
    package var migrations: [Migration]
    /// Rows per table of the dumped schema, counted in the dump's own snapshot.
    package var rowCounts: [String: Int]
    /// Roles that own objects in the database or hold privileges on them: names only, created
    /// (NOLOGIN, as quoted identifiers) by a restore when missing.
    package var roles: [String]
    /// The sync epoch at backup time (migrations/0023); nil before that migration.
    package var epoch: String?
    package var members: [Member]

    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(self)
    }

    package static func decode(_ data: Data) throws -> BackupManifest {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(BackupManifest.self, from: data)
        } catch {
            throw BackupError("manifest.json is not a Dispatch backup manifest (\(error))")
        }
    }
}
