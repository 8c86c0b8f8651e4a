/// The rows asked for: `offset`/`limit` parameters intersected with a `Range: first-last`
/// header (GET only), as PostgREST does (`src/PostgREST/RangeQuery.hs`).
struct RestRange: Sendable, Equatable {
    var offset: Int
    /// nil: to the end.
    var limit: Int?
    /// The largest row number a request may name (beyond any real table, far from overflow).
    static let maxRow = 1 << 40

    init(offset: Int?, limit: Int?, header: String?) throws {
        var lower = offset ?? 0
        var upper: Int? = limit.map { lower + $0 - 1 }
        if let header, let (first, last) = Self.parse(header) {
            lower = max(lower, first)
            if let last { upper = upper.map { min($0, last) } ?? last }
        }
        if limit == 0 {
            self.offset = offset ?? 0
            self.limit = 0
            return
        }
        if let upper, upper < lower {
            throw RestError.invalidRange("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
        }
        self.offset = lower
        self.limit = upper.map { $0 - lower + 1 }
    }

    /// `0-24` or `10-`; anything else is ignored, as PostgREST does.
    static func parse(_ header: String) -> (Int, Int?)? {
        let parts = header.trimmingCharacters(in: [" "]).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]), first >= 0, first <= maxRow,
              parts[0].allSatisfy(\.isNumber) else { return nil }
        if parts[1].isEmpty { return (first, nil) }
        guard parts[1].allSatisfy(\.isNumber), let last = Int(parts[1]), last <= maxRow else { return nil }
        return (first, last)
    }
}

private extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
