import Foundation

/// Seals a secret the server must be able to read back (a queued mail's sign-in link, a
/// webhook's signing secret, Slack's credentials) so that a backup or a read-only database user
/// never sees it: AES-256-GCM under a key derived from the server secret (JWT_SECRET) with a
/// label of its own per use, so the key is never the signing key itself, one use's key opens
/// nothing of another's, and every instance sharing the server secret opens what another
/// stored.
///
/// Stored form: `sealed:v1:` + base64(nonce ‖ ciphertext ‖ tag).
public struct SecretSeal: Sendable {
    public static let prefix = "sealed:v1:"
    let key: [UInt8]

    /// `label` names the use ("dispatch mail outbox v1"); changing it orphans what was sealed.
    public init(serverSecret: String, label: String) {
        key = HMACSHA256.mac(key: Array(serverSecret.utf8), Array(label.utf8))
    }

    public func seal(_ text: String) throws -> String {
        Self.prefix + Data(try AESGCM.seal(Array(text.utf8), key: key)).base64EncodedString()
    }

    /// The text, or nil when it is not sealed, was sealed under another server secret
    /// (JWT_SECRET changed while it waited) or another label, or was altered.
    public func open(_ stored: String) -> String? {
        guard stored.hasPrefix(Self.prefix),
              let sealed = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
              let plain = AESGCM.open(Array(sealed), key: key) else { return nil }
        return String(validating: plain, as: UTF8.self)
    }
}
