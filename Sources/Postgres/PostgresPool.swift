import Foundation
import Synchronization

/// A fixed-size, lazily filled pool of connections with blocking acquisition.
///
/// Recovery is automatic: connections that are broken, or whose idle socket shows the server
/// went away, are discarded and replaced on the next acquire, so after a database restart the
/// next request reconnects without any manual reset.
public final class PostgresPool: Sendable {
    public let configuration: Configuration
    /// Round trips of every statement run on this pool's connections (`/metrics`).
    public let queryTimings = QueryTimings()
    /// Faults its connections met without failing a caller, or by giving up (`/metrics`).
    public let faultCounters = PostgresFaultCounters()
    private let state: PoolState
    /// `limitWriteTransactions(to:)`; nil: unlimited.
    private let writeLimit = Mutex<Duration?>(nil)

    public init(configuration: Configuration) {
        self.configuration = configuration
        self.state = PoolState()
    }

    public convenience init(conninfo: String, size: Int = 10) {
        self.init(configuration: Configuration(conninfo: conninfo, size: size))
    }

    deinit {
        close()
    }

    /// Runs `body` with a connection checked out for its duration.
    public func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        let connection = try acquire()
        do {
            let result = try body(connection)
            release(connection)
            return result
        } catch {
            release(connection)
            throw error
        }
    }

    /// From now on, a transaction of `withTransaction` that wrote and has run longer than
    /// `limit` is rolled back instead of committed (PostgreSQL 15 has no transaction_timeout).
    /// What it buys: a row's `updated_at` (its transaction's start) is never more than `limit`
    /// (plus the COMMIT round trip) older than the moment it becomes visible, which is what
    /// lets `/rest/v1` serve `updated_at=gt.X` delta polls without losing late commits.
    /// Set by `serve` once migrations (which may run long) are done.
    public func limitWriteTransactions(to limit: Duration?) {
        writeLimit.withLock { $0 = limit }
    }

    public var writeTransactionLimit: Duration? { writeLimit.withLock { $0 } }

    /// Runs `body` inside BEGIN … COMMIT (ROLLBACK when it throws).
    ///
    /// With `maxAttempts` > 1 the whole transaction is retried (on the same connection) when
    /// it fails with a serialization failure or deadlock — the errors PostgreSQL expects
    /// clients to retry. `body` must then be safe to run again (its effects were rolled back).
    public func withTransaction<Result>(
        isolation: PostgresIsolationLevel? = nil,
        maxAttempts: Int = 1,
        _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        try withConnection { connection in
            var attempt = 1
            while true {
                do {
                    return try connection.withTransaction(isolation: isolation, writeLimit: writeTransactionLimit, body)
                } catch let error as PostgresError
                    where attempt < maxAttempts && (error.code == .serializationFailure || error.code == .deadlockDetected) {
                    attempt += 1
                }
            }
        }
    }

    /// Convenience for a single statement.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        try withConnection { try $0.query(query) }
    }

    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try withConnection { try $0.execute(query) }
    }

    public func notify(channel: String, payload: String) throws {
        try withConnection { try $0.notify(channel: channel, payload: payload) }
    }

    public var stats: Stats {
        state.condition.lock()
        defer { state.condition.unlock() }
        let box = state.box
        return Stats(open: box.open, inUse: box.inUse, idle: box.idle.count, waiting: box.waiting)
    }

    /// Closes idle connections now and in-use ones when they are returned; later acquires
    /// fail with `.closed`.
    public func close() {
        state.condition.lock()
        state.box.isClosed = true
        let idle = state.box.idle
        state.box.idle.removeAll()
        state.box.open -= idle.count
        state.condition.broadcast()
        state.condition.unlock()
        idle.forEach { $0.close() }
    }

    // MARK: Acquire / release

    private func acquire() throws -> PostgresConnection {
        let deadline = ContinuousClock.now + configuration.acquisitionTimeout
        let wallDeadline = Date().addingTimeInterval(configuration.acquisitionTimeout.timeInterval)
        state.condition.lock()
        while true {
            if state.box.isClosed {
                state.condition.unlock()
                throw PostgresError(kind: .closed, message: "connection pool is closed")
            }
            if let connection = state.box.idle.popLast() {
                state.box.inUse += 1
                state.condition.unlock()
                if connection.isIdleConnectionAlive() { return connection }
                connection.close()
                state.condition.lock()
                state.box.inUse -= 1
                state.box.open -= 1
                continue
            }
            if state.box.open < configuration.size {
                state.box.open += 1
                state.box.inUse += 1
                state.condition.unlock()
                return try openConnection(until: deadline)
            }
            state.box.waiting += 1
            let signalled = state.condition.wait(until: wallDeadline)
            state.box.waiting -= 1
            if !signalled && state.box.idle.isEmpty && state.box.open >= configuration.size {
                state.condition.unlock()
                throw PostgresError(
                    kind: .poolTimeout,
                    message: "no database connection available within \(configuration.acquisitionTimeout) (pool size \(configuration.size))")
            }
        }
    }

    private func openConnection(until deadline: ContinuousClock.Instant) throws -> PostgresConnection {
        let remaining = deadline - ContinuousClock.now
        let timeout = min(configuration.connection.connectTimeout, max(remaining, .seconds(1)))
        do {
            let connection = try PostgresConnection(configuration: configuration.connection, connectTimeout: timeout)
            connection.timings = queryTimings
            connection.faultCounters = faultCounters
            return connection
        } catch {
            state.condition.lock()
            state.box.open -= 1
            state.box.inUse -= 1
            state.condition.signal()
            state.condition.unlock()
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        let keep = prepareForReuse(connection)
        state.condition.lock()
        state.box.inUse -= 1
        if keep && !state.box.isClosed {
            state.box.idle.append(connection)
            state.condition.signal()
            state.condition.unlock()
        } else {
            state.box.open -= 1
            state.condition.signal()
            state.condition.unlock()
            connection.close()
        }
    }

    /// A connection goes back only when it is healthy and outside any transaction; one
    /// returned mid-transaction (the caller swallowed an error, or forgot to commit) is
    /// rolled back first, so the next user never inherits its state.
    private func prepareForReuse(_ connection: PostgresConnection) -> Bool {
        guard connection.isHealthy else { return false }
        switch connection.transactionStatus {
        case .idle:
            connection.deallocateEvictedStatements()
            return connection.isHealthy
        case .inTransaction, .inFailedTransaction:
            connection.rollbackQuietly()
            return connection.isHealthy && connection.transactionStatus == .idle
        case .active, .unknown:
            return false
        }
    }
}

/// Mutable pool bookkeeping guarded by `condition`'s lock.
private final class PoolState: @unchecked Sendable {
    // Every access to `box` happens between condition.lock() and condition.unlock().
    let condition = NSCondition()
    var box = Box()

    struct Box {
        var idle: [PostgresConnection] = []
        var open = 0
        var inUse = 0
        var waiting = 0
        var isClosed = false
    }
}
