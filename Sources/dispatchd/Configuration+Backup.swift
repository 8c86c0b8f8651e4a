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

        static func load(_ reader: EnvironmentReader, dataDirectory: String, embedded: Bool) throws(ConfigurationError) -> BackupSettings {
            let daily: Bool
            switch reader.string(.backupDaily)?.lowercased() {
            case nil: daily = embedded
            case "on", "true", "1", "yes": daily = true
            case "off", "false", "0", "no": daily = false
            case let other?: throw ConfigurationError("BACKUP_DAILY must be on or off (got \"\(other)\")")
            }
            return BackupSettings(
                directory: reader.string(.backupDirectory) ?? URL(fileURLWithPath: dataDirectory).appendingPathComponent("backups").path,
                keep: try reader.integer(.backupKeep, default: 7, in: 0...100_000),
                daily: daily)
        }
    }
}
