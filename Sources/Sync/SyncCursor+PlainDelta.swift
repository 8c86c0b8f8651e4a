import Store

extension SyncCursor {
    /// A delta cursor that is not mid-chain: the only kind SyncFeed.sharedPages reads for
    /// many users at once.
    package var isPlainDelta: Bool { since != nil && position == nil }
}
