/// Why a sync page cannot be served for a cursor.
public enum SyncFeedError: Error, Sendable, Equatable {
    /// Not a cursor this server could have written (e.g. beyond the current snapshot).
    case invalidCursor
    /// The history the cursor needs was pruned: the client must start over without `since`.
    case resyncRequired
    /// The cursor was issued in another epoch (before a restore): the client must start over.
    case epochChanged
}
