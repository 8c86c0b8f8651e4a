import Foundation

/// One event for one endpoint as the deliveries listing shows it: the last attempt's outcome
/// and when the next one is due.
public struct WebhookDelivery: Sendable, Equatable {
    /// Where a delivery stands; the `status` filter of the listing.
    public enum Status: String, Sendable, CaseIterable {
        /// Not attempted yet.
        case pending
        /// At least one attempt failed; another is scheduled.
        case retrying
        case succeeded
        /// Given up (attempts exhausted, or the endpoint answered 410).
        case dead
    }

    public var id: UUID
    public var endpointID: UUID
    public var eventID: String
    public var eventType: String
    public var status: Status
    public var attempts: Int
    public var lastStatus: Int?
    public var lastDurationMilliseconds: Int?
    public var lastError: String?
    public var lastAttemptAt: Date?
    /// nil once it succeeded or is dead.
    public var nextAttemptAt: Date?
    public var createdAt: Date
}
