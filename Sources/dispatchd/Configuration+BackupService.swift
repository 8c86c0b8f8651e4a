import Backups
import Foundation
import Logging
import Postgres

extension Configuration {
    /// The backup service of this configuration (BACKUP_DIR, BACKUP_KEEP, the backup key),
    /// recording its runs in `pool` when given.
    func backupService(target: DatabaseTarget, keys: BackupKeyring, pool: PostgresPool?, logger: Logger) -> BackupService {
        BackupService(target: target, keys: keys, migrationsDirectory: migrationsDirectory, directory: backup.directory,
                      keep: backup.keep, pool: pool, restoreCommand: restoreCommand, logger: logger)
    }

    /// `dispatchd restore --force` as this deployment would run it: this binary's path, and
    /// the setting that names the database (DATA_DIR for the embedded one; DATABASE_URL is a
    /// secret, so it is named, never shown). Shown on the console's Backups page.
    var restoreCommand: String {
        let binary = Bundle.main.executablePath ?? "dispatchd"
        let database = databaseURL == nil
            ? "DATA_DIR=\(ShellWord.quoted(URL(fileURLWithPath: dataDirectory).standardizedFileURL.path))"
            : "DATABASE_URL=\"$DATABASE_URL\""
        return "\(database) \(ShellWord.quoted(binary)) restore --force"
    }

}
