import Credentials
import Foundation

/// Seals the Slack credentials at rest (the signing secrets, the incoming webhook URL, a
/// request's `response_url`): AES-256-GCM under a key derived from the server secret
/// (JWT_SECRET) with a label of its own, as `MailSeal` does for queued mail, so a backup or
/// a read-only database user never reads them and every instance opens what another stored.
package struct SlackSeal: Sendable {
    static let prefix = "sealed:v1:"
    let key: [UInt8]

    package init(serverSecret: String) {
        key = HMACSHA256.mac(key: Array(serverSecret.utf8), Array("dispatch slack credentials v1".utf8))
    }

    package func seal(_ text: String) throws -> String {
        Self.prefix + Data(try AESGCM.seal(Array(text.utf8), key: key)).base64EncodedString()
    }

    /// nil when sealed under another secret (JWT_SECRET changed) or altered.
    package func open(_ stored: String) -> String? {
        guard stored.hasPrefix(Self.prefix),
              let sealed = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
              let plain = AESGCM.open(Array(sealed), key: key) else { return nil }
        return String(validating: plain, as: UTF8.self)
    }
}
