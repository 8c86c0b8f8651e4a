import Credentials
import Foundation
import Logging
import Push
import Sync

extension Configuration {
    /// Silent push (`APNS_*`, `PUSH_MIN_INTERVAL`, docs/operators/push.md). Without
    /// APNS_KEY_FILE nothing is sent and no wake-up is queued; devices still register.
    struct PushSettings: Sendable {
        var apns: APNsSettings?
        /// PUSH_MIN_INTERVAL: seconds between two ordinary wake-ups of one device (default 1200).
        var minInterval: Double = 1200

        static func load(_ reader: EnvironmentReader) throws(ConfigurationError) -> PushSettings {
            var settings = PushSettings()
            settings.minInterval = try reader.seconds(.pushMinInterval, default: 1200)
            guard let keyFile = reader.string(.apnsKeyFile) else {
                for setting in [Setting.apnsKeyID, .apnsTeamID, .apnsTopic] where reader.string(setting) != nil {
                    throw ConfigurationError("\(setting.name) is set but APNS_KEY_FILE is not: set both, or neither")
                }
                return settings
            }
            guard let keyID = reader.string(.apnsKeyID), let teamID = reader.string(.apnsTeamID), let topic = reader.string(.apnsTopic) else {
                throw ConfigurationError("APNS_KEY_FILE needs APNS_KEY_ID, APNS_TEAM_ID and APNS_TOPIC")
            }
            // The key's content never appears in a message: only the file's name.
            guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                throw ConfigurationError("APNS_KEY_FILE \(keyFile) cannot be read")
            }
            let key: JWSSigningKey
            do {
                key = try JWSSigningKey(pem: pem)
            } catch {
                throw ConfigurationError("APNS_KEY_FILE \(keyFile) is not a PEM P-256 private key (the .p8 file Apple gives)")
            }
            guard key.algorithm == .es256 else {
                throw ConfigurationError("APNS_KEY_FILE \(keyFile) is not a P-256 key (the .p8 file Apple gives)")
            }
            let url = reader.string(.apnsURL) ?? APNsSettings.productionURL
            guard url.lowercased().hasPrefix("https://") else {
                throw ConfigurationError("APNS_URL must be an https URL (got \"\(url)\")")
            }
            let caFile = reader.string(.apnsCAFile)
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw ConfigurationError("APNS_CA_FILE \(caFile) cannot be read")
            }
            settings.apns = APNsSettings(key: key, keyID: keyID, teamID: teamID, topic: topic, baseURL: url, caFile: caFile)
            return settings
        }

        func sender(service: PushService, sync: SyncService, logger: Logger) -> PushSender {
            var policy = PushPolicy()
            policy.minInterval = .milliseconds(Int64(minInterval * 1000))
            return PushSender(service: service, sync: sync, apns: apns, policy: policy, logger: logger)
        }
    }
}
