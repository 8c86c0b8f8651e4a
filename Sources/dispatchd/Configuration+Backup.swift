import Foundation

extension Configuration {
    /// Backups (`BACKUP_*`, docs/operators/backups.md).
    struct BackupSettings: Sendable {
        /// BACKUP_DIR: where `backup` and the daily backups write (default `$DATA_DIR/backups`).
        var directory: String
        /// BACKUP_KEEP: how many backups a directory keeps, newest first (0: all; default 7).
        var keep: Int
        /// BACKUP_DAILY: whether `serve` takes a backup each UTC day (default on with the
        /// embedded database, off with DATABASE_URL, where the operator usually has their own).
        var daily: Bool
        /// BACKUP_KEY: the secret whose derived key signs new backups' manifests (nil: the
        /// token-signing secret, JWT_SECRET or the embedded mode's generated one).
        var key: String?
        /// BACKUP_KEY_PREVIOUS: earlier secrets whose backups are still accepted (rotation).
        var previousKeys: [String]

        static func load(_ reader: EnvironmentReader, dataDirectory: String, embedded: Bool) throws(ConfigurationError) -> BackupSettings {
            let daily: Bool
            switch reader.string(.backupDaily)?.lowercased() {
            case nil: daily = embedded
            case "on", "true", "1", "yes": daily = true
            case "off", "false", "0", "no": daily = false
            case let other?: throw ConfigurationError("BACKUP_DAILY must be on or off (got \"\(other)\")")
            }
            let key = reader.string(.backupKey)
            if let key, key.utf8.count < Configuration.minimumJWTSecretBytes {
                throw ConfigurationError("BACKUP_KEY must be at least \(Configuration.minimumJWTSecretBytes) bytes (got \(key.utf8.count)); generate one with: openssl rand -base64 48")
            }
            let previous = (reader.string(.backupKeyPrevious) ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if previous.contains(where: { $0.utf8.count < Configuration.minimumJWTSecretBytes }) {
                throw ConfigurationError("BACKUP_KEY_PREVIOUS must be a comma-separated list of secrets of at least \(Configuration.minimumJWTSecretBytes) bytes each")
            }
            return BackupSettings(
                directory: reader.string(.backupDirectory) ?? URL(fileURLWithPath: dataDirectory).appendingPathComponent("backups").path,
                keep: try reader.integer(.backupKeep, default: 7, in: 0...100_000),
                daily: daily, key: key, previousKeys: previous)
        }
    }
}
