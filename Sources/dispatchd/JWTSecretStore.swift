import Credentials
import Foundation

/// Provides the token-signing secret for the embedded-database mode: generated once and kept
/// in the data directory (mode 0600) so issued tokens survive restarts. With an external
/// database, JWT_SECRET is mandatory instead: several replicas must share one secret.
enum JWTSecretStore {
    static func loadOrCreate(in dataDirectory: String) throws -> String {
        if let existing = try load(in: dataDirectory) { return existing }
        let path = dataDirectory + "/jwt_secret"
        let secret = try SecureRandom.token(byteCount: 48)
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        guard FileManager.default.createFile(
            atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600]
        ) else {
            throw ConfigurationError("cannot write \(path); check that DATA_DIR is writable")
        }
        return secret
    }

    /// The stored secret, or nil when there is none (a restore must not make one up: the
    /// backups of this installation are verified with it).
    static func load(in dataDirectory: String) throws -> String? {
        let path = dataDirectory + "/jwt_secret"
        guard let existing = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let secret = existing.trimmingCharacters(in: .whitespacesAndNewlines)
        guard secret.utf8.count >= Configuration.minimumJWTSecretBytes else {
            throw ConfigurationError("\(path) holds a secret shorter than \(Configuration.minimumJWTSecretBytes) bytes; delete it to generate a new one")
        }
        return secret
    }
}
