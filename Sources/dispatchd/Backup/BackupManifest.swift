import Foundation

/// `manifest.json`, the first member of a backup file (docs/operators/backups.md): what the
/// dump must contain, so `restore --verify` can prove a restore complete. Its exact bytes are
/// authenticated by `manifest.hmac` (BackupKeyring); it is data only: nothing in it is run.
struct BackupManifest: Codable, Equatable {
    /// Format 2 is signed and carries no SQL; format 1 (unsigned, with a `roles.sql` that a
    /// restore used to run) is refused.
    static let currentFormat = "dispatch-backup/2"
    static let manifestName = "manifest.json"
    static let signatureName = "manifest.hmac"
    static let dumpName = "database.dump"

    struct Migration: Codable, Equatable {
        var version: Int
        var name: String
        var checksum: String
    }

    struct Member: Codable, Equatable {
        var name: String
        var bytes: Int
        var sha256: String
    }

    var format: String
    /// UTC, ISO 8601, when the dump's snapshot was taken.
    var createdAt: String
    /// The dump's snapshot (`pg_current_snapshot()`): exactly the transactions whose writes
    /// it holds; later ones are not in the backup.
    var snapshot: String
    var database: String
    /// `server_version` of the PostgreSQL that was dumped, and the pg_dump that dumped it.
    var serverVersion: String
    var serverVersionNum: Int
    var pgDumpVersion: String
    /// The highest applied migration (0 when none) and every applied one.
    var schemaVersion: Int
    var migrations: [Migration]
    /// Rows per table of the dumped schema, counted in the dump's own snapshot.
    var rowCounts: [String: Int]
    /// Roles that own objects in the database or hold privileges on them: names only, created
    /// (NOLOGIN, as quoted identifiers) by a restore when missing.
    var roles: [String]
    /// The sync epoch at backup time (migrations/0023); nil before that migration.
    var epoch: String?
    var members: [Member]

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(self)
    }

    static func decode(_ data: Data) throws -> BackupManifest {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(BackupManifest.self, from: data)
        } catch {
            throw BackupError("manifest.json is not a Dispatch backup manifest (\(error))")
        }
    }
}
