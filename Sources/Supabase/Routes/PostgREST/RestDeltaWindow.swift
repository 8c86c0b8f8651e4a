import Store

/// Gap-free delta polling for apps that sync with `updated_at=gt.<lastSync>`.
///
/// `updated_at` is the writing transaction's start time (`now()`), and `lastSync` is the
/// phone's clock after its previous poll. Served literally, that loses (a) a write whose
/// transaction began before the previous poll and committed after it, (b) writes hidden by a
/// phone clock running ahead, (c) rows whose microseconds the client rounded away. So a
/// top-level `updated_at=gt.X` or `gte.X` is served as `updated_at >= X − overlap`, where
/// `overlap` is the longest a write may take to become visible (the server enforces it:
/// `PostgresPool.limitWriteTransactions`, and `statement_timeout` for single statements), plus
/// the phone-clock bound, plus a second for commit latency and rounding. Rows come again on
/// the next poll (the app upserts them, so duplicates are harmless); none is lost while the
/// phone's clock is within `clockSkew` of the database's.
package struct RestDeltaWindow: Sendable {
    package let overlapMilliseconds: Int64

    /// `longestWrite`: the longest a write transaction (or single statement) can run before
    /// it commits; `clockSkew`: how far the phone's clock may be ahead of the database's.
    package init(longestWrite: Duration, clockSkew: Duration) {
        overlapMilliseconds = Self.milliseconds(longestWrite) + Self.milliseconds(clockSkew) + 1000
    }

    /// No widening (tests of the literal filter semantics).
    package static let none = RestDeltaWindow(overlapMilliseconds: 0)

    private init(overlapMilliseconds: Int64) {
        self.overlapMilliseconds = overlapMilliseconds
    }

    func widening(_ condition: RestCondition) -> RestCondition {
        guard overlapMilliseconds > 0, case .compare(let column, let comparison, let value) = condition,
              column.name == "updated_at", comparison == .gt || comparison == .gte
        else { return condition }
        return .since(column, value, overlapMilliseconds: overlapMilliseconds)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
