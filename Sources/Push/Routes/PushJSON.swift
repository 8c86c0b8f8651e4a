import Foundation
import JSON
import RouteKit
import Store

/// The JSON shape of a device, as its owner sees it.
enum PushJSON {
    static func device(_ device: PushDevice) -> JSONValue {
        [
            "id": .string(device.id.uuidString.lowercased()),
            "platform": .string(device.platform.rawValue),
            "token": .string(device.token),
            "app_id": .string(device.appID),
            "created_at": JSONOutput.timestamp(device.createdAt),
            "registered_at": JSONOutput.timestamp(device.registeredAt),
            "last_push_at": JSONOutput.timestamp(device.lastPushAt),
            "last_failure_at": JSONOutput.timestamp(device.lastFailureAt),
        ]
    }
}
