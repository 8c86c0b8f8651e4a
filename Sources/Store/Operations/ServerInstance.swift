import Foundation

/// One dispatchd process as its heartbeat row records it (migration 0037).
public struct ServerInstance: Sendable, Equatable {
    public var id: UUID
    public var version: String
    /// Where the process listens, as it names itself (host name and port).
    public var address: String
    public var startedAt: Date
    public var lastSeen: Date

    public init(id: UUID, version: String, address: String, startedAt: Date, lastSeen: Date) {
        self.id = id
        self.version = version
        self.address = address
        self.startedAt = startedAt
        self.lastSeen = lastSeen
    }
}
