import Backups
import Foundation

extension BackupKeyring {
    /// The keys for this configuration. `creating`: with the embedded database and no
    /// configured secret, generate the token secret as `serve` would (a backup may be the first
    /// command run); a restore never does, since a new secret cannot verify an existing file.
    static func load(_ configuration: Configuration, creating: Bool) throws -> BackupKeyring {
        let previous = configuration.backup.previousKeys
        if let secret = configuration.backup.key ?? configuration.jwtSecret {
            return BackupKeyring(secret: secret, previous: previous)
        }
        if creating {
            return BackupKeyring(secret: try JWTSecretStore.loadOrCreate(in: configuration.dataDirectory), previous: previous)
        }
        guard let secret = try JWTSecretStore.load(in: configuration.dataDirectory) else {
            throw BackupError("no backup key: \(configuration.dataDirectory)/jwt_secret does not exist and neither BACKUP_KEY nor JWT_SECRET is set. Set BACKUP_KEY (or JWT_SECRET) to the secret of the installation that wrote the backup, or put its jwt_secret back (docs/operators/backups.md)")
        }
        return BackupKeyring(secret: secret, previous: previous)
    }
}
