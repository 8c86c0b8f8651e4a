import Foundation
import Store

/// A person's phones registered for silent push (`push_devices`), as the person page and their
/// Sync health page show them: when each registered, was last woken, and last failed. The
/// device token is shown only by its last characters, enough to tell two phones apart.
enum ConsoleWakeUps {
    static func data(userID: UUID, site: ConsoleSite) throws -> [String: Any] {
        let devices = try PushDeviceStore(pool: site.auth.pool).list(user: userID)
        return [
            "noPushDevices": devices.isEmpty,
            "pushDevices": devices.map { device in
                ["platform": device.platform == .ios ? "iPhone / iPad" : "Android", "tokenEnd": String(device.token.suffix(6)),
                 "app": device.appID, "registered": ConsoleFormat.time(device.registeredAt),
                 "lastPush": device.lastPushAt.map(ConsoleFormat.time) ?? "never",
                 "failedAt": ConsoleFormat.time(device.lastFailureAt), "failure": device.lastFailure ?? ""] as [String: Any]
            },
        ]
    }
}
