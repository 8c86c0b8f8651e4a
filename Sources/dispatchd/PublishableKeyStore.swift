import Credentials
import Foundation

/// Provides the publishable key (PUBLISHABLE_KEY) for the embedded-database mode: generated
/// once and kept in the data directory, like `JWTSecretStore`, so apps configured with it keep
/// working across restarts. With an external database it must be configured: replicas share it.
///
/// The key is public — apps embed it and send it as `apikey` — so it grants nothing by itself;
/// it only tells this server's Supabase-compatible routes from stray traffic, as Supabase's does.
enum PublishableKeyStore {
    static let prefix = "sb_publishable_"
    static let minimumLength = 20

    /// What is wrong with a configured key, or nil: it travels in an HTTP header, so printable
    /// ASCII without spaces, and long enough not to be guessed by accident.
    static func problem(with key: String) -> String? {
        if key.utf8.count < minimumLength { return "must be at least \(minimumLength) characters (got \(key.utf8.count))" }
        if !key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { return "must be printable ASCII without spaces" }
        return nil
    }

    static func loadOrCreate(in dataDirectory: String) throws -> String {
        let path = dataDirectory + "/publishable_key"
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            let key = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if let problem = problem(with: key) {
                throw ConfigurationError("\(path) holds a key that \(problem); delete it to generate a new one")
            }
            return key
        }
        let key = prefix + (try SecureRandom.token(byteCount: 24))
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        guard FileManager.default.createFile(
            atPath: path, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600]
        ) else {
            throw ConfigurationError("cannot write \(path); check that DATA_DIR is writable")
        }
        return key
    }
}
