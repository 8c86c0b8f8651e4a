/// The outcome of a create (or of a `PUT` that may create): a new row, or the existing one
/// when the request replayed an earlier create with the same id and content (safe retries;
/// HTTP 201 vs 200). The same for every resource.
public struct CreateResult: Sendable, Equatable {
    public var row: ResourceRow
    public var created: Bool

    public init(row: ResourceRow, created: Bool) {
        self.row = row
        self.created = created
    }
}
