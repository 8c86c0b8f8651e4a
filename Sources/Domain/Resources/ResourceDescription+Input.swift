/// The JSON keys a write body may carry, derived from the columns (contract §4): what a client
/// may set is read; what the server writes may be sent back unchanged and is ignored; anything
/// else is a 422 `unknown_field`. A column added to the description is accepted by every
/// route and push at once, read by the generic parser by its `ValueRule` and stored by the
/// generated SQL (`WritableColumnRoundTripTests`, `NewColumnPipelineTests` hold that).
extension ResourceDescription {
    /// Columns only the server writes.
    public var serverColumns: [ColumnDescription] {
        columns.filter { $0.access == .server }
    }

    /// Keys read on a write that sends the whole row or part of it (create, `PUT`, `PATCH` of
    /// a listing, task or activity): the client-writable columns.
    public var writableKeys: Set<String> {
        Set(updatableColumns.map(\.name))
    }

    /// Keys a create reads: writable and create-only columns (a child's parent, an explicit id).
    public var creatableKeys: Set<String> {
        Set(creatableColumns.map(\.name))
    }

    /// Keys accepted and dropped on a create: what the server writes, and the id (read apart).
    public var ignoredOnCreate: Set<String> {
        Set(serverColumns.map(\.name)).union(["id"])
    }

    /// Keys accepted and dropped on a change: what the server writes and what is fixed at creation.
    public var ignoredOnChange: Set<String> {
        Set(columns.filter { $0.access != .writable }.map(\.name))
    }
}
