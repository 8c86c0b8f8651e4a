import Domain
import Foundation

/// One page of a parent's notes or subtasks, and where the next page starts (nil: last page).
public struct ChildPage: Sendable, Equatable {
    /// A keyset position: the last row's sort key and id. Notes sort by `created_at` (as
    /// integer microseconds, PostgreSQL's precision, so nothing is skipped through rounding),
    /// subtasks by `position`.
    public struct Position: Sendable, Equatable, Codable {
        public var key: Int64
        public var id: UUID

        public init(key: Int64, id: UUID) {
            self.key = key
            self.id = id
        }
    }

    public var rows: [ChildRow]
    public var next: Position?

    public init(rows: [ChildRow], next: Position?) {
        self.rows = rows
        self.next = next
    }
}

extension ChildPage.Position: RangeChecked {
    /// Notes' keys are `created_at` microseconds, subtasks' are int4 positions; both lie in
    /// the range of timestamps the API accepts, so a key outside it was forged.
    public var isWithinRange: Bool { Timestamp.microsecondRange.contains(key) }
}
