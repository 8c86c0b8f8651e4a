import Foundation
import Testing

/// The push settings as `dispatchd serve` reads them: an incomplete or wrong configuration stops
/// it at start with exit 2 and one line naming the setting, never quoting a key file's content.
@Suite struct PushConfigurationTests {
    static let secretLine = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSECRETSECRET"

    func serve(_ environment: [String: String]) throws -> CommandLineTests.Result {
        try CommandLineTests.runDispatchd(["serve"], environment: environment)
    }

    @Test func incompleteOrWrongPushSettingsStopTheServerNamingTheSetting() throws {
        let directory = NSTemporaryDirectory() + "push-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Looks like a key, is not one: its text must not reach the message.
        let notAKey = directory + "/broken.p8"
        try Data("-----BEGIN PRIVATE KEY-----\n\(Self.secretLine)\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: notAKey))
        let account = directory + "/account.json"
        try Data(#"{"project_id":"p","client_email":"e@example.com","private_key":"\#(Self.secretLine)"}"#.utf8)
            .write(to: URL(fileURLWithPath: account))
        let apns = ["APNS_KEY_ID": "K", "APNS_TEAM_ID": "T", "APNS_TOPIC": "com.example.dispatch"]
        let cases: [([String: String], String)] = [
            (["APNS_KEY_ID": "K"], "APNS_KEY_ID is set but APNS_KEY_FILE is not"),
            (["APNS_URL": "https://api.sandbox.push.apple.com"], "APNS_URL or APNS_CA_FILE is set but APNS_KEY_FILE is not"),
            (["APNS_KEY_FILE": notAKey], "APNS_KEY_FILE needs APNS_KEY_ID, APNS_TEAM_ID and APNS_TOPIC"),
            (apns.merging(["APNS_KEY_FILE": directory + "/missing.p8"]) { $1 }, "APNS_KEY_FILE \(directory)/missing.p8 cannot be read"),
            (apns.merging(["APNS_KEY_FILE": notAKey]) { $1 }, "is not a PEM P-256 private key"),
            (["PUSH_MIN_INTERVAL": "0"], "PUSH_MIN_INTERVAL must be a number of seconds"),
            (["FCM_URL": "https://fcm.example"], "FCM_URL or FCM_TOKEN_URL is set but FCM_SERVICE_ACCOUNT_FILE is not"),
            (["FCM_SERVICE_ACCOUNT_FILE": account], "holds no RSA private key"),
            (["FCM_SERVICE_ACCOUNT_FILE": account, "FCM_URL": "http://fcm.example"], "FCM_URL must be an https URL"),
        ]
        for (environment, message) in cases {
            let result = try serve(environment)
            #expect(result.status == 2, "\(environment)")
            #expect(result.standardError.contains(message), "\(environment): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
            #expect(!result.standardError.contains("SECRET"), "a key file's content reached the message")
        }
    }
}
