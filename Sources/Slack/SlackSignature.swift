import Credentials
import Foundation

/// Slack's request signing (v0): `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret,
/// "v0:<X-Slack-Request-Timestamp>:<raw body>")>`. Checked on the raw bytes before anything
/// parses them, compared in constant time, and only within five minutes of the timestamp
/// either way, so a captured request cannot be replayed later.
package enum SlackSignature {
    /// Slack's window: requests older (or newer) than this are refused.
    package static let tolerance: TimeInterval = 300

    package enum Failure: Error, Equatable {
        case missing
        case stale
        case mismatch
    }

    /// `v0=` and the lowercase hex MAC.
    package static func sign(secret: String, timestamp: String, body: [UInt8]) -> String {
        "v0=" + HMACSHA256.hex(key: Array(secret.utf8), bytes: Array("v0:\(timestamp):".utf8) + body)
    }

    /// Passes when `signature` is the MAC of the body under any of `secrets` (the current one
    /// and, during a rotation, the previous) and the timestamp is within the window.
    package static func verify(signature: String?, timestamp: String?, body: [UInt8], secrets: [String], now: Date) throws(Failure) {
        guard let signature, let timestamp, !timestamp.isEmpty, timestamp.utf8.count <= 12,
              timestamp.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let seconds = Double(timestamp), !secrets.isEmpty else { throw .missing }
        guard abs(now.timeIntervalSince1970 - seconds) <= tolerance else { throw .stale }
        let given = Array(signature.utf8)
        var matched = false
        for secret in secrets {
            // Every secret is tried, whatever matched first: the time taken says nothing.
            if ConstantTime.equals(Array(sign(secret: secret, timestamp: timestamp, body: body).utf8), given) { matched = true }
        }
        guard matched else { throw .mismatch }
    }
}
