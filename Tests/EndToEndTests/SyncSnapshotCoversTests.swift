import Foundation
import Postgres
import Store
import TestSupport
import Testing

/// SyncSnapshot.isVisible and .covers, which ChangeHistory's proof rests on, agree with
/// PostgreSQL's own pg_visible_in_snapshot on random snapshots.
@Suite struct SyncSnapshotCoversTests {
    static func random(_ generator: inout SyncConvergenceTests.SplitMix) -> SyncSnapshot {
        let xmin = UInt64.random(in: 3...20, using: &generator)
        let xmax = xmin + UInt64.random(in: 0...12, using: &generator)
        let running = (xmin..<xmax).filter { _ in Bool.random(using: &generator) }
        return SyncSnapshot(xmin: xmin, xmax: xmax, running: running)
    }

    /// A snapshot taken after `older` (some of its running transactions finished, new ones
    /// started), or one in four times, one that also lists a transaction `older` saw as running.
    static func later(than older: SyncSnapshot, _ generator: inout SyncConvergenceTests.SplitMix) -> SyncSnapshot {
        let xmax = older.xmax + UInt64.random(in: 0...5, using: &generator)
        var running = older.running.filter { _ in Bool.random(using: &generator) }
            + (older.xmax..<xmax).filter { _ in Bool.random(using: &generator) }
        if Int.random(in: 0..<4, using: &generator) == 0,
           let seen = (older.xmin..<older.xmax).filter({ older.isVisible($0) }).randomElement(using: &generator) {
            running.append(seen)
        }
        running.sort()
        return SyncSnapshot(xmin: running.first ?? xmax, xmax: xmax, running: running)
    }

    @Test func coversAndIsVisibleAgreeWithPostgreSQL() throws {
        let database = try TestDatabase.create(poolSize: 1)
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SyncConvergenceTests.SplitMix(state: seed)
        var pairs: [(SyncSnapshot, SyncSnapshot)] = []
        for _ in 0..<200 {
            let older = Self.random(&generator)
            pairs.append((Self.random(&generator), older))
            pairs.append((Self.later(than: older, &generator), older))
        }
        // The tricky case by hand: a transaction running in S that is visible in W.
        pairs.append((SyncSnapshot(xmin: 10, xmax: 20, running: [15]), SyncSnapshot(xmin: 10, xmax: 20, running: [])))
        for (index, (s, w)) in pairs.enumerated() {
            let rows = try database.pool.query("""
                SELECT NOT EXISTS (SELECT 1 FROM generate_series(1, 40) x
                                   WHERE pg_visible_in_snapshot(x::text::xid8, \(w.text)::pg_snapshot)
                                     AND NOT pg_visible_in_snapshot(x::text::xid8, \(s.text)::pg_snapshot)) AS covers,
                       array_to_string(ARRAY(SELECT x FROM generate_series(1, 40) x
                                             WHERE pg_visible_in_snapshot(x::text::xid8, \(s.text)::pg_snapshot)), ',') AS visible
                """)
            let covers = try rows[0].decode("covers", as: Bool.self)
            #expect(s.covers(w) == covers, "seed \(seed), pair \(index): \(s.text) covers \(w.text)")
            let visible = try rows[0].decode("visible", as: String.self)
            #expect((1...40).filter { s.isVisible(UInt64($0)) }.map(String.init).joined(separator: ",") == visible,
                    "seed \(seed): \(s.text)")
        }
    }
}
