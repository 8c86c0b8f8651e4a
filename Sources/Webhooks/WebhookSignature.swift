import Credentials
import Foundation

/// The Standard Webhooks v1 signature: `v1,` + base64(HMAC-SHA256(key, "id.timestamp.body"))
/// over the exact bytes sent, one per secret that still signs, space-separated (a receiver
/// accepts any match, which is what makes a rotation seamless).
package enum WebhookSignature {
    package static func header(id: String, timestamp: Int, body: [UInt8], secrets: [WebhookSecret]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return secrets.map { "v1," + Data(HMACSHA256.mac(key: $0.key, signed)).base64EncodedString() }.joined(separator: " ")
    }
}
