import Credentials
import Foundation

/// The keys that authenticate backup files. A backup's `manifest.hmac` holds an HMAC-SHA256 of
/// the exact bytes of its `manifest.json`, and the manifest holds the size and SHA-256 of the
/// dump: so a file verifies only if someone holding the key wrote it, byte for byte.
///
/// The key is derived (HMAC-SHA256 under a fixed label) from a secret the operator holds:
/// BACKUP_KEY, else the token-signing secret (JWT_SECRET, or the embedded mode's generated
/// `DATA_DIR/jwt_secret`). Deriving keeps the two uses apart: a backup's MAC says nothing about
/// the token key. Rotation: set a new BACKUP_KEY and list the old secrets in
/// BACKUP_KEY_PREVIOUS; new backups are signed with the new key, old ones still verify.
package struct BackupKeyring: Sendable {
    package struct Key: Sendable {
        /// A short public name for the key (a MAC of a fixed text), so a refusal can say which
        /// key signed a file without revealing anything about the key.
        package let id: String
        package let bytes: [UInt8]
    }

    package static let algorithm = "HMAC-SHA256"
    private static let derivationLabel = "dispatch-backup manifest key v1"

    package let signing: Key
    /// The signing key first, then the previous ones.
    package let accepted: [Key]

    package init(secret: String, previous: [String] = []) {
        signing = Self.derive(secret)
        accepted = [signing] + previous.map(Self.derive)
    }

    package static func derive(_ secret: String) -> Key {
        let bytes = HMACSHA256.mac(key: Array(secret.utf8), Array(derivationLabel.utf8))
        return Key(id: String(HMACSHA256.hex(key: bytes, "key id").prefix(12)), bytes: bytes)
    }

    /// `manifest.hmac`: one line, `HMAC-SHA256 <key id> <hex MAC>`.
    package func sign(_ manifest: Data) -> Data {
        Data("\(Self.algorithm) \(signing.id) \(HMACSHA256.hex(key: signing.bytes, bytes: [UInt8](manifest)))\n".utf8)
    }

    /// Throws unless `signature` is a MAC of `manifest` under one of the accepted keys.
    package func verify(manifest: Data, signature: Data, of file: String) throws {
        let fields = String(decoding: signature, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let parts = fields.first?.split(separator: " ", omittingEmptySubsequences: false).map(String.init) ?? []
        guard fields.count == 2, fields[1].isEmpty, parts.count == 3, parts[0] == Self.algorithm,
              parts[2].utf8.count == 64, parts[2].utf8.allSatisfy({ Self.isHexDigit($0) }) else {
            throw BackupError("\(file) is not a signed Dispatch backup: manifest.hmac is not \"\(Self.algorithm) <key id> <MAC>\"")
        }
        let given = Array(parts[2].utf8)
        for key in accepted where ConstantTime.equals(Array(HMACSHA256.hex(key: key.bytes, bytes: [UInt8](manifest)).utf8), given) {
            return
        }
        guard accepted.contains(where: { $0.id == parts[1] }) else {
            throw BackupError("\(file) was signed with backup key \(parts[1].prefix(12)), which this installation does not hold (it holds \(accepted.map(\.id).joined(separator: ", "))): a backup of another installation, or of a key no longer listed in BACKUP_KEY_PREVIOUS; refused before touching any database")
        }
        throw BackupError("\(file) has been altered since it was written: its manifest does not match its HMAC; refused before touching any database")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
