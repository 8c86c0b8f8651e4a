/// Per-connection limits of the realtime protocol (docs/app-developers/realtime.md). The transport bounds
/// frames, messages and the send queue; these bound what the channel layer accepts.
package struct RealtimeLimits: Sendable {
    /// Topics one connection may have joined at once.
    package var channelsPerConnection = 100
    /// `postgres_changes` entries in one join.
    package var subscriptionsPerChannel = 50
    /// Bytes of one broadcast's payload as JSON.
    package var broadcastBytes = 64 * 1024
    /// Broadcasts per second per connection (sustained), and the burst allowed above it.
    package var broadcastsPerSecond = 25.0
    package var broadcastBurst = 50.0
    /// Rows and removals a join may replay from a cursor (one sync page's default limit; the
    /// page's byte bound applies too). More answers the join with `ResyncRequired`.
    package var replayChanges = 1000

    package init() {}
}
