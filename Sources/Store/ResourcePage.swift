import Foundation

/// A keyset position in a list ordered by (`updated_at`, `id`): `updated_at` in integer
/// microseconds since the epoch (PostgreSQL's precision, so nothing is skipped by rounding).
public struct KeysetPosition: Sendable, Equatable {
    public var updatedAtMicros: Int64
    public var id: UUID

    public init(updatedAtMicros: Int64, id: UUID) {
        self.updatedAtMicros = updatedAtMicros
        self.id = id
    }
}

/// One page of a list: JSON rows, and where the next page starts (nil: this is the last).
public struct ResourcePage: Sendable, Equatable {
    public var rows: [String]
    public var next: KeysetPosition?
}
