/// The outcome of a create: a new row, or the existing one when the request replayed an
/// earlier create with the same id and content (safe retries; HTTP 201 vs 200).
public struct ChildCreateResult: Sendable, Equatable {
    public var row: ChildRow
    public var created: Bool

    public init(row: ChildRow, created: Bool) {
        self.row = row
        self.created = created
    }
}
