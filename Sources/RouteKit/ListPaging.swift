/// How big one list page may get in bytes (`LIST_PAGE_MAX_BYTES`): rows stop once
/// the response would pass it, except that the first row always goes out, so a single row
/// larger than the budget is still reachable. Applies to every paged `/v1` list (listings,
/// tasks, activities, notes, subtasks, history).
package struct ListPaging: Sendable, Equatable {
    package var maxBytes: Int

    /// 1 MiB: a page of the default 50 rows is far below it; every row the API accepts fits.
    package static let defaultMaxBytes = 1 << 20
    /// Room kept for the envelope around the rows (`{"items":[`, `],"next_cursor":"…"}`).
    package static let envelopeBytes = 512

    package init(maxBytes: Int = ListPaging.defaultMaxBytes) {
        self.maxBytes = maxBytes
    }

    /// The budget for the rows' JSON itself.
    package var rowBytes: Int { max(1, maxBytes - Self.envelopeBytes) }
}
