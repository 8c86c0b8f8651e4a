import JSON
import Store

extension PushDevice {
    /// The device as its owner reads it, on `/v1/devices` and (with `user_id`, every column
    /// as PostgREST answers a row) on `/rest/v1/push_devices`: one description for both doors.
    package func json(withUser: Bool = false) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id.uuidString.lowercased()),
            "platform": .string(platform.rawValue),
            "token": .string(token),
            "app_id": .string(appID),
            "created_at": JSONOutput.timestamp(createdAt),
            "registered_at": JSONOutput.timestamp(registeredAt),
            "last_push_at": JSONOutput.timestamp(lastPushAt),
            "last_failure_at": JSONOutput.timestamp(lastFailureAt),
        ]
        if withUser { object["user_id"] = .string(userID.uuidString.lowercased()) }
        return .object(object)
    }
}
