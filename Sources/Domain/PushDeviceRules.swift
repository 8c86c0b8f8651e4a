/// What a push device registration must hold, whichever door it comes through (`/v1/devices`,
/// `/rest/v1/push_devices`): a platform the server knows, the provider's token (URL-safe
/// characters only: it becomes a URL path segment for APNs), the app's id.
public enum PushDeviceRules {
    public static let platforms = ["ios", "android"]
    public static let maxTokenBytes = 4096
    public static let maxAppIDBytes = 255
    /// APNs tokens are hex, FCM's letters, digits, `-`, `_` and `:`: URL-safe characters only,
    /// so a token can never add a path, query or fragment to the provider's URL.
    static let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:~".unicodeScalars)

    /// Field problems of the values given (nil: not sent; the caller reports missing ones).
    public static func problems(platform: String?, token: String?, appID: String?) -> [FieldError] {
        var errors: [FieldError] = []
        if let platform, !platforms.contains(platform) {
            errors.append(FieldError(field: "platform", code: .invalidValue, message: "Must be ios or android."))
        }
        if let token {
            let bytes = token.utf8.count
            if bytes < 8 || bytes > maxTokenBytes || !token.unicodeScalars.allSatisfy(tokenCharacters.contains) {
                errors.append(FieldError(field: "token", code: .invalidValue,
                                         message: "Must be the device token the provider gave the app (8 to 4096 letters, digits, - _ . : or ~)."))
            }
        }
        if let appID, appID.isEmpty || appID.utf8.count > maxAppIDBytes {
            errors.append(FieldError(field: "app_id", code: .invalidValue, message: "Must be the app's bundle or package id (1 to 255 bytes)."))
        }
        return errors
    }
}
