import Synchronization

/// A cumulative histogram of statement round trips (seconds: send, server execution, result)
/// over every connection of a pool, for `db_query_duration_seconds` in `/metrics`, and the
/// largest result one statement returned (what a request made the process hold at once).
public final class QueryTimings: Sendable {
    /// Upper bounds in seconds; statements are usually sub-millisecond, so the low end is fine.
    public static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]

    public struct Snapshot: Sendable, Equatable {
        /// Observations ≤ each bound of `bucketBounds`, cumulative as Prometheus expects.
        public var cumulativeCounts: [Int]
        public var sum: Double
        public var count: Int
    }

    private let state = Mutex(Snapshot(cumulativeCounts: Array(repeating: 0, count: QueryTimings.bucketBounds.count), sum: 0, count: 0))

    private let largestResult = Atomic<Int>(0)

    public init() {}

    /// Bytes of the largest result (`PostgresRows.resultBytes`) since the pool was made.
    public var largestResultBytes: Int { largestResult.load(ordering: .relaxed) }

    func noteResult(bytes: Int) {
        var current = largestResult.load(ordering: .relaxed)
        while bytes > current {
            let (exchanged, original) = largestResult.compareExchange(expected: current, desired: bytes, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    public func record(seconds: Double) {
        state.withLock { snapshot in
            for (index, bound) in Self.bucketBounds.enumerated() where seconds <= bound {
                snapshot.cumulativeCounts[index] += 1
            }
            snapshot.sum += seconds
            snapshot.count += 1
        }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }
}
