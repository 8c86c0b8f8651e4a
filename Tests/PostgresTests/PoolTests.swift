import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct PoolTests {
    let db: TestDatabase

    init() throws {
        db = try TestDatabase.create()
    }

    @Test func exhaustedPoolTimesOutWithPoolTimeout() throws {
        let pool = db.makePool(size: 1, acquisitionTimeout: .milliseconds(300))
        defer { pool.close() }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? pool.withConnection { _ in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        #expect(pool.stats == PostgresPool.Stats(open: 1, inUse: 1, idle: 0, waiting: 0))
        let started = ContinuousClock.now
        let error = try #require(throws: PostgresError.self) { try pool.withConnection { _ in } }
        let waited = ContinuousClock.now - started
        release.signal()
        #expect(error.kind == .poolTimeout)
        #expect(waited < .seconds(10))
    }

    @Test func waiterGetsConnectionWhenHolderReturnsIt() throws {
        let pool = db.makePool(size: 1, acquisitionTimeout: .seconds(10))
        defer { pool.close() }
        let holding = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? pool.withConnection { _ in
                holding.signal()
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        holder.start()
        holding.wait()
        let value = try pool.withConnection { try $0.query("SELECT 5 AS v").first?.decode("v", as: Int.self) }
        #expect(value == 5)
        #expect(pool.stats.open == 1)
    }

    @Test func connectionsAreCreatedLazilyAndReused() throws {
        let pool = db.makePool(size: 3)
        defer { pool.close() }
        #expect(pool.stats.open == 0)
        for _ in 0..<5 { try pool.execute("SELECT 1") }
        #expect(pool.stats == PostgresPool.Stats(open: 1, inUse: 0, idle: 1, waiting: 0))
    }

    @Test func terminatedBackendIsReplacedOnNextAcquire() throws {
        let pool = db.makePool(size: 1)
        defer { pool.close() }
        let pid = try pool.withConnection { try $0.query("SELECT pg_backend_pid() AS pid").first?.decode("pid", as: Int32.self) }
        let admin = try db.connect()
        let terminated = try admin.query("SELECT pg_terminate_backend(\(pid)) AS ok").first?.decode("ok", as: Bool.self)
        #expect(terminated == true)
        // Wait until the backend is really gone so the pool's socket has the FATAL message.
        for _ in 0..<100 {
            let alive = try admin.query("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = \(pid)").first?.decode("n", as: Int.self)
            if alive == 0 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let newPid = try pool.withConnection { try $0.query("SELECT pg_backend_pid() AS pid").first?.decode("pid", as: Int32.self) }
        #expect(newPid != nil)
        #expect(newPid != pid)
    }

    @Test func connectionErrorInsideBodyDiscardsConnection() throws {
        let pool = db.makePool(size: 1)
        defer { pool.close() }
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection { try $0.execute("SELECT pg_terminate_backend(pg_backend_pid())") }
        }
        #expect(error.isConnectionError)
        #expect(pool.stats.open == 0)
        #expect(try pool.query("SELECT 1 AS one").first?.decode("one", as: Int.self) == 1)
    }

    @Test func unreachableServerFailsFastWithConnectionKind() throws {
        let pool = PostgresPool(configuration: .init(
            conninfo: "host=/nonexistent-dir port=5999 user=postgres dbname=postgres", size: 2, acquisitionTimeout: .seconds(5)))
        defer { pool.close() }
        let started = ContinuousClock.now
        let error = try #require(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error.kind == .connection)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(pool.stats.open == 0)
    }

    @Test func closedPoolRejectsAcquire() throws {
        let pool = db.makePool(size: 1)
        try pool.execute("SELECT 1")
        pool.close()
        let error = try #require(throws: PostgresError.self) { try pool.execute("SELECT 1") }
        #expect(error.kind == .closed)
        #expect(pool.stats.open == 0)
    }

    @Test func manyThreadsShareASmallPool() throws {
        let pool = db.makePool(size: 3, acquisitionTimeout: .seconds(20))
        defer { pool.close() }
        try pool.execute("CREATE TABLE hits (n int)")
        let group = DispatchGroup()
        let failures = Failures()
        for worker in 0..<8 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    for i in 0..<10 { try pool.execute("INSERT INTO hits VALUES (\(worker * 100 + i))") }
                } catch {
                    failures.record(error)
                }
            }.start()
        }
        group.wait()
        #expect(failures.count == 0)
        #expect(try pool.query("SELECT count(*) AS n FROM hits").first?.decode("n", as: Int.self) == 80)
        #expect(pool.stats.open <= 3)
        #expect(pool.stats.inUse == 0)
    }
}

/// Thread-safe error collector for tests that run work on plain threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func record(_ error: any Error) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return errors.count
    }
}
