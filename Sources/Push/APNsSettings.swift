import Credentials
import Foundation

/// Where and as whom the APNs sender talks (APNS_* settings). The key comes from a file
/// named in the settings, never from the database, so no backup ever holds it.
package struct APNsSettings: Sendable {
    package var key: JWSSigningKey
    package var keyID: String
    package var teamID: String
    /// The app's bundle id (`apns-topic`).
    package var topic: String
    /// `https://api.push.apple.com` (production) or `https://api.sandbox.push.apple.com`.
    package var baseURL: String
    /// APNS_CA_FILE: trust only this CA (a test's fake); nil: the system's trust store.
    package var caFile: String?
    package var timeout: Duration = .seconds(10)

    package init(key: JWSSigningKey, keyID: String, teamID: String, topic: String, baseURL: String, caFile: String?) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.baseURL = baseURL
        self.caFile = caFile
    }

    package static let productionURL = "https://api.push.apple.com"
}
