import Credentials
import Foundation
import Logging
import Push
import Sync

extension Configuration {
    /// Silent push (`APNS_*`, `FCM_*`, `PUSH_MIN_INTERVAL`, docs/operators/push.md). A platform
    /// without its provider's key gets no wake-up; devices still register.
    struct PushSettings: Sendable {
        var apns: APNsSettings?
        /// FCM_SERVICE_ACCOUNT_FILE, FCM_URL, FCM_TOKEN_URL: Android devices; nil: not woken.
        var fcm: FCMSettings?
        /// PUSH_MIN_INTERVAL: seconds between two ordinary wake-ups of one device (default 1200).
        var minInterval: Double = 1200

        static func load(_ reader: EnvironmentReader) throws(ConfigurationError) -> PushSettings {
            var settings = PushSettings()
            settings.minInterval = try reader.seconds(.pushMinInterval, default: 1200)
            settings.fcm = try loadFCM(reader)
            guard let keyFile = reader.string(.apnsKeyFile) else {
                if reader.string(.apnsURL) != nil || reader.string(.apnsCAFile) != nil {
                    throw ConfigurationError("APNS_URL or APNS_CA_FILE is set but APNS_KEY_FILE is not")
                }
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

        /// Google's URLs must be https; http is accepted only for a loopback address (a test's fake).
        static func loadFCM(_ reader: EnvironmentReader) throws(ConfigurationError) -> FCMSettings? {
            let urls = (reader.string(.fcmURL), reader.string(.fcmTokenURL))
            guard let file = reader.string(.fcmServiceAccountFile) else {
                if urls.0 != nil || urls.1 != nil { throw ConfigurationError("FCM_URL or FCM_TOKEN_URL is set but FCM_SERVICE_ACCOUNT_FILE is not") }
                return nil
            }
            for (setting, url) in [(Setting.fcmURL, urls.0), (.fcmTokenURL, urls.1)] {
                guard let url else { continue }
                let lower = url.lowercased()
                guard lower.hasPrefix("https://") || lower.hasPrefix("http://127.0.0.1") || lower.hasPrefix("http://localhost") else {
                    throw ConfigurationError("\(setting.name) must be an https URL (http only for 127.0.0.1 or localhost; got \"\(url)\")")
                }
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError("FCM_SERVICE_ACCOUNT_FILE \(file) cannot be read")
            }
            do {
                return try FCMSettings(serviceAccountJSON: data, tokenURL: urls.1, baseURL: urls.0, caFile: nil)
            } catch {
                throw ConfigurationError("FCM_SERVICE_ACCOUNT_FILE \(file) \(error.message)")
            }
        }

        func sender(service: PushService, sync: SyncService, logger: Logger) -> PushSender {
            var policy = PushPolicy()
            policy.minInterval = .milliseconds(Int64(minInterval * 1000))
            return PushSender(service: service, sync: sync, apns: apns, fcm: fcm, policy: policy, logger: logger)
        }
    }
}
