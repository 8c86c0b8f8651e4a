/// `Prefer: count=…`: how the total behind `Content-Range` is obtained.
public enum RestCountMode: String, Sendable {
    /// `count(*)` over the filters, in the same snapshot as the rows.
    case exact
    /// The planner's estimate (`EXPLAIN`): cheap, approximate.
    case planned
    /// Exact while the planner expects at most `estimatedExactLimit` rows, planned beyond
    /// (PostgREST's rule, with our threshold since we have no `db-max-rows`).
    case estimated

    public static let estimatedExactLimit = 1000
}
