import Credentials
import Foundation

/// An endpoint's signing secret in the Standard Webhooks form: `whsec_` + base64 of random
/// bytes. The HMAC key is the decoded bytes, as every Standard Webhooks library reads it.
package struct WebhookSecret: Sendable, Equatable {
    static let prefix = "whsec_"
    /// 32 random bytes (the specification asks for 24 to 64).
    static let byteCount = 32

    package let text: String

    package init?(_ text: String) {
        guard text.hasPrefix(Self.prefix), let key = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
              !key.isEmpty else { return nil }
        self.text = text
    }

    package static func generate() throws -> WebhookSecret {
        let text = prefix + Data(try SecureRandom.bytes(byteCount)).base64EncodedString()
        guard let secret = WebhookSecret(text) else { throw CredentialsError.randomUnavailable }
        return secret
    }

    /// The HMAC key.
    package var key: [UInt8] {
        Array(Data(base64Encoded: String(text.dropFirst(Self.prefix.count))) ?? Data())
    }
}
