/// Per-connection limits of the realtime protocol (docs/app-developers/realtime.md). The transport bounds
/// frames, messages and the send queue; these bound what the channel layer accepts.
public struct RealtimeLimits: Sendable {
    /// Topics one connection may have joined at once.
    public var channelsPerConnection = 100
    /// `postgres_changes` entries in one join.
    public var subscriptionsPerChannel = 50
    /// Bytes of one broadcast's payload as JSON.
    public var broadcastBytes = 64 * 1024
    /// Broadcasts per second per connection (sustained), and the burst allowed above it.
    public var broadcastsPerSecond = 25.0
    public var broadcastBurst = 50.0
    /// Rows and removals a join may replay from a cursor (one sync page's default limit; the
    /// page's byte bound applies too). More answers the join with `ResyncRequired`.
    public var replayChanges = 1000

    public init() {}
}
