import Foundation

/// A stored webhook endpoint. The secrets are as stored: sealed (`SecretSeal`), never
/// the clear text, so this value may be logged or listed without leaking them.
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: UUID
    public var url: String
    public var events: [String]
    public var description: String
    public var enabled: Bool
    /// Why the server disabled it (a 410, failing for days); nil when an admin did, or it is on.
    public var disabledReason: String?
    public var sealedSecret: String
    /// The secret before the last rotation, still signing until `previousSecretExpiresAt`.
    public var sealedPreviousSecret: String?
    public var previousSecretExpiresAt: Date?
    public var createdBy: UUID?
    public var failingSince: Date?
    public var createdAt: Date
    public var updatedAt: Date
}
