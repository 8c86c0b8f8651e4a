import Credentials
import Foundation

/// Seals `mail_outbox.message` at rest: a queued mail may carry a sign-in code and link, and
/// while the relay is down it waits in the table, where a backup or a read-only database user
/// would see it. The message is stored AES-256-GCM sealed under a key derived from the server
/// secret (JWT_SECRET) with a label of its own, so it is never the signing key itself and
/// every instance sharing the secret can open what another queued.
///
/// Stored form: `sealed:v1:` + base64(nonce ‖ ciphertext ‖ tag). A value without the prefix is
/// a message queued before sealing existed and is sent as it is.
public struct MailSeal: Sendable {
    static let prefix = "sealed:v1:"
    let key: [UInt8]

    public init(serverSecret: String) {
        key = HMACSHA256.mac(key: Array(serverSecret.utf8), Array("dispatch mail outbox v1".utf8))
    }

    public func seal(_ message: String) throws -> String {
        Self.prefix + Data(try AESGCM.seal(Array(message.utf8), key: key)).base64EncodedString()
    }

    /// The message, or nil when it was sealed under another secret (JWT_SECRET changed while
    /// it waited) or altered.
    public func open(_ stored: String) -> String? {
        guard stored.hasPrefix(Self.prefix) else { return stored }
        guard let sealed = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
              let plain = AESGCM.open(Array(sealed), key: key) else { return nil }
        return String(validating: plain, as: UTF8.self)
    }
}
