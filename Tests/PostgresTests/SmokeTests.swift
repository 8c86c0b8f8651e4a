import Postgres
import Testing
import TestSupport

@Test func smokeSelectOne() throws {
    let db = try TestDatabase.create()
    let rows = try db.pool.query("SELECT 1 + \(41) AS answer")
    #expect(try rows.first?.decode("answer", as: Int.self) == 42)
}
