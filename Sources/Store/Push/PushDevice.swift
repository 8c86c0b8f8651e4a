import Foundation

/// A phone that asked to be woken when its user's data changes. `token` is the provider's
/// device token: it can only be used with the provider key, which never reaches the database.
public struct PushDevice: Sendable, Equatable {
    public enum Platform: String, Sendable, CaseIterable {
        case ios
        case android
    }

    public var id: UUID
    public var userID: UUID
    public var sessionID: UUID?
    public var platform: Platform
    public var token: String
    public var appID: String
    public var createdAt: Date
    public var registeredAt: Date
    public var lastPushAt: Date?
    public var lastFailureAt: Date?
    public var lastFailure: String?
}
