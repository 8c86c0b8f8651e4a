import Foundation

/// A keyset position in an ordered list: the last row's sort key (see `ListOrder`: a
/// timestamp in integer microseconds, or a rank; nil only for a missing due date) and its id.
public struct KeysetPosition: Sendable, Equatable {
    public var key: Int64?
    public var id: UUID

    public init(key: Int64?, id: UUID) {
        self.key = key
        self.id = id
    }
}

/// One page of a list (of any resource, or a parent's notes or subtasks): JSON rows, and
/// where the next page starts (nil: this is the last).
public struct ResourcePage: Sendable, Equatable {
    public var rows: [String]
    public var next: KeysetPosition?

    public init(rows: [String], next: KeysetPosition?) {
        self.rows = rows
        self.next = next
    }
}
