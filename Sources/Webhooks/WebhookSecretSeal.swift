import Credentials
import Foundation

/// Seals endpoint secrets at rest: a webhook secret must be usable (the sender signs with it),
/// so it cannot be hashed; it is stored AES-256-GCM sealed under a key derived from the
/// server secret (JWT_SECRET) with a label of its own, as the mail outbox seals its messages
/// (`MailSeal`). A backup or a read-only database user sees only the sealed form, and every
/// instance sharing the server secret can open it.
///
/// Stored form: `sealed:v1:` + base64(nonce ‖ ciphertext ‖ tag).
package struct WebhookSecretSeal: Sendable {
    static let prefix = "sealed:v1:"
    let key: [UInt8]

    package init(serverSecret: String) {
        key = HMACSHA256.mac(key: Array(serverSecret.utf8), Array("dispatch webhook secrets v1".utf8))
    }

    package func seal(_ secret: WebhookSecret) throws -> String {
        Self.prefix + Data(try AESGCM.seal(Array(secret.text.utf8), key: key)).base64EncodedString()
    }

    /// The secret, or nil when it was sealed under another server secret, or altered.
    package func open(_ stored: String) -> WebhookSecret? {
        guard stored.hasPrefix(Self.prefix),
              let sealed = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
              let plain = AESGCM.open(Array(sealed), key: key),
              let text = String(validating: plain, as: UTF8.self) else { return nil }
        return WebhookSecret(text)
    }
}
