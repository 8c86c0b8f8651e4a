import Foundation

// TEMPORARY (branch fanoutuse): helper `sharedread` builds the real shared read; until it
// lands on main this reads each viewer's page alone, which gives the same pages, just not
// from one snapshot. Replace this file with theirs when merging main.
extension SyncFeed {
    /// Pages for many viewers that share one plain delta cursor (`cursor.since != nil`,
    /// `cursor.position == nil`), read with ONE snapshot and a constant number of statements
    /// whatever the number of viewers. Viewers missing from the result could not be answered
    /// from the shared read; the caller reads them one by one.
    public func sharedPages(viewers: [Viewer], cursor: SyncCursor, limit: Int) throws -> [Viewer: SyncPage] {
        var pages: [Viewer: SyncPage] = [:]
        for viewer in viewers { pages[viewer] = try page(viewer: viewer, cursor: cursor, limit: limit) }
        return pages
    }
}
