/// A PostgreSQL snapshot (`pg_snapshot`): which transactions had committed when it was taken.
/// A transaction id is visible in it when it is below `xmin`, or below `xmax` and not in
/// `running` — exactly `pg_visible_in_snapshot`. The text form is PostgreSQL's own
/// (`xmin:xmax:xip1,xip2`), so the database parses it back with `::pg_snapshot`.
public struct SyncSnapshot: Sendable, Equatable {
    public var xmin: UInt64
    public var xmax: UInt64
    public var running: [UInt64]

    /// Beyond this many running transactions a cursor would outgrow a request line; the
    /// text is refused and SyncFeed widens the snapshot to `xmin:xmin:` instead (more
    /// repeats, never a miss: it claims less was seen than really was).
    static let maxRunning = 200
    /// `pg_snapshot` input refuses ids beyond this (a full transaction id is a signed 64-bit
    /// number there), though `xid8` takes any unsigned one.
    static let maxTransactionID = UInt64(Int64.max)

    public init(xmin: UInt64, xmax: UInt64, running: [UInt64]) {
        self.xmin = xmin
        self.xmax = xmax
        self.running = running
    }

    /// Accepts exactly what PostgreSQL's `pg_snapshot` input accepts and writes (xmin ≥ 1,
    /// xmin ≤ xmax ≤ 2^63 − 1, running ids in [xmin, xmax) in ascending order), so a forged
    /// cursor is refused here rather than failing in SQL as a data exception (a 422).
    public init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]), xmin >= 1, xmin <= xmax,
              xmax <= Self.maxTransactionID
        else { return nil }
        var running: [UInt64] = []
        if !parts[2].isEmpty {
            for item in parts[2].split(separator: ",", omittingEmptySubsequences: false) {
                guard let xid = UInt64(item), (xmin..<xmax).contains(xid), xid > (running.last ?? 0) else { return nil }
                running.append(xid)
            }
        }
        guard running.count <= Self.maxRunning else { return nil }
        self.init(xmin: xmin, xmax: xmax, running: running)
    }

    public var text: String { "\(xmin):\(xmax):" + running.map(String.init).joined(separator: ",") }
}
