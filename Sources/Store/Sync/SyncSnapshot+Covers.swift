extension SyncSnapshot {
    /// Whether transaction `xid` had committed when the snapshot was taken (PostgreSQL's
    /// `pg_visible_in_snapshot`): below `xmin`, or below `xmax` and not running.
    public func isVisible(_ xid: UInt64) -> Bool {
        xid < xmin || (xid < xmax && !running.contains(xid))
    }

    /// Whether every transaction visible in `other` is visible in this snapshot too, so that
    /// whatever committed after this snapshot also committed after `other`. Exact (tested
    /// against `pg_visible_in_snapshot`), in time linear in the running lists:
    /// - a transaction this snapshot lists as running must not be visible in `other`;
    /// - any other transaction below `xmax` is visible here;
    /// - a transaction at or above `xmax` is not, so `other` must not see any: every id in
    ///   [xmax, other.xmax) must be running in `other` (and so at or above its xmin).
    public func covers(_ other: SyncSnapshot) -> Bool {
        guard running.allSatisfy({ !other.isVisible($0) }) else { return false }
        guard other.xmax > xmax else { return true }
        return xmax >= other.xmin && UInt64(other.running.count { $0 >= xmax }) == other.xmax - xmax
    }
}
