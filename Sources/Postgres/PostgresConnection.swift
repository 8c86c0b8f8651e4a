import CLibPQ
import Foundation

/// One libpq connection with a synchronous API.
///
/// Threading rule: a connection is used by one thread at a time (the pool hands it to a
/// single worker; the listener owns its own). It is `@unchecked Sendable` only so it can be
/// moved between threads; callers must never use it from two threads concurrently.
public final class PostgresConnection: @unchecked Sendable {
    public let configuration: Configuration
    private var handle: OpaquePointer?
    /// Prepared statement name → SQL, so a name is PQprepare'd once per session.
    private var preparedStatements: [String: String] = [:]
    /// Statements `query` prepared by itself, keyed by SQL text (`+StatementCache.swift`).
    var statementCache: PostgresStatementCache
    /// Set by the notice receiver when the server announced (FATAL/PANIC) that it is
    /// closing this session, e.g. after pg_terminate_backend or at shutdown.
    fileprivate var serverAnnouncedTermination = false
    /// Channels whose NOTIFY this session owes after its current transaction commits
    /// (`+AfterCommitNotify.swift`); filled by the notice receiver.
    var owedNotifications: Set<String> = []
    /// A statement went unanswered past its deadline (`+AnswerDeadline.swift`): never reused.
    var answerDeadlinePassed = false
    /// Set by whoever turned `statement_timeout` off on this session (migrations, bulk seeding),
    /// whose statements may run long: then answers are waited for without a deadline.
    public var answerDeadlineLifted = false
    /// Where statement round trips are recorded; set by the pool for its connections.
    public var timings: QueryTimings?
    /// Where faults this connection survived are counted; set by the pool for its connections.
    public var faultCounters: PostgresFaultCounters?

    public convenience init(configuration: Configuration) throws {
        try self.init(configuration: configuration, connectTimeout: configuration.connectTimeout)
    }

    /// Connects with default session settings to a conninfo string or `postgres://` URL.
    public convenience init(_ conninfo: String) throws {
        try self.init(configuration: Configuration(conninfo: conninfo))
    }

    /// Pool path: a connect timeout bounded by what is left of the acquisition timeout.
    init(configuration: Configuration, connectTimeout: Duration) throws {
        self.configuration = configuration
        statementCache = PostgresStatementCache(capacity: configuration.transactionPooled ? 0 : configuration.statementCacheCapacity)
        handle = try Self.connect(configuration, connectTimeout: connectTimeout)
        installNoticeReceiver()
        try applySessionSettings()
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    // MARK: Queries

    /// Runs one statement with bound parameters and returns its rows. Queries and DML run as
    /// named statements prepared once per session (the statement cache) unless the
    /// configuration turns the cache off; anything else runs unnamed.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        let connection = try liveHandle()
        let started = ContinuousClock.now
        defer { recordTiming(since: started) }
        let rows = try notifyingAfterCommit {
            if statementCache.isEnabled, PostgresStatementCache.isCacheable(query.sql) {
                return try cachedQuery(query, on: connection)
            }
            return try unnamedQuery(query, on: connection)
        }
        timings?.noteResult(bytes: rows.resultBytes)
        return rows
    }

    /// One statement as the unnamed statement: parsed and planned on every call.
    func unnamedQuery(_ query: PostgresQuery, on connection: OpaquePointer) throws -> PostgresRows {
        try withCParameters(query.binds) { values, types in
            try exchange(connection, sql: query.sql) {
                PQsendQueryParams(connection, query.sql, Int32(values.count), types, values, nil, nil, 0)
            }
        }
    }

    /// Runs one statement and returns the affected row count.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try self.query(query).affectedRows
    }

    /// Runs a prepared statement, preparing it on first use in this session. The same name
    /// must always be used with the same SQL.
    @discardableResult
    public func queryPrepared(name: String, _ query: PostgresQuery) throws -> PostgresRows {
        let started = ContinuousClock.now
        defer { recordTiming(since: started) }
        let rows = try notifyingAfterCommit { try queryPrepared(name: name, query, mayRePrepare: true) }
        timings?.noteResult(bytes: rows.resultBytes)
        return rows
    }

    private func recordTiming(since started: ContinuousClock.Instant) {
        guard let timings else { return }
        let elapsed = ContinuousClock.now - started
        timings.record(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    private func queryPrepared(name: String, _ query: PostgresQuery, mayRePrepare: Bool) throws -> PostgresRows {
        let connection = try liveHandle()
        // A pooler may run the next transaction on another server session: nothing named.
        if configuration.transactionPooled { return try unnamedQuery(query, on: connection) }
        if let known = preparedStatements[name] {
            guard known == query.sql else {
                throw PostgresError(kind: .misuse, message: "prepared statement \"\(name)\" reused with different SQL")
            }
        } else {
            let types = query.binds.map(\.typeOID)
            _ = try exchange(connection, sql: query.sql, executes: false) {
                PQsendPrepare(connection, name, query.sql, Int32(types.count), types)
            }
            preparedStatements[name] = query.sql
        }
        do {
            return try withCParameters(query.binds) { values, _ in
                try exchange(connection, sql: query.sql) {
                    PQsendQueryPrepared(connection, name, Int32(values.count), values, nil, nil, 0)
                }
            }
        } catch let error as PostgresError
            where mayRePrepare && error.code == .invalidSQLStatementName && transactionStatus == .idle {
            // Someone ran DEALLOCATE/DISCARD ALL: forget the cache entries and prepare again once.
            preparedStatements[name] = nil
            statementCache.removeAll()
            return try queryPrepared(name: name, query, mayRePrepare: false)
        }
    }

    /// Runs trusted, possibly multi-statement SQL without parameters (PQexec). For migration
    /// files and fixed setup scripts only — never for anything containing input.
    public func runTrustedScript(_ sql: String) throws {
        let connection = try liveHandle()
        try notifyingAfterCommit { _ = try exchange(connection, sql: sql) { PQsendQuery(connection, sql) } }
    }

    /// `SELECT pg_notify(channel, payload)`.
    public func notify(channel: String, payload: String) throws {
        try execute("SELECT pg_notify(\(channel), \(payload))")
    }

    // MARK: Transactions

    /// BEGIN, run `body`, COMMIT; ROLLBACK when `body` throws. Throws if the transaction was
    /// aborted by an error that `body` swallowed (COMMIT would silently roll back).
    /// With `writeLimit`, a transaction that wrote and is older than that right before COMMIT
    /// is rolled back and throws `queryCanceled` (see `PostgresPool.limitWriteTransactions`).
    public func withTransaction<Result>(
        isolation: PostgresIsolationLevel? = nil,
        writeLimit: Duration? = nil,
        _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        _ = try liveHandle()
        let started = ContinuousClock.now
        // A nested BEGIN is only a warning in PostgreSQL, and the inner COMMIT would commit
        // the outer transaction early.
        guard transactionStatus == .idle else {
            throw PostgresError(kind: .misuse, message: "withTransaction called while a transaction is already open")
        }
        try begin(isolation: isolation)
        let result: Result
        do {
            result = try body(self)
        } catch {
            rollbackQuietly()
            throw error
        }
        try enforceWriteLimit(writeLimit, startedAt: started)
        let commit = try query("COMMIT")
        if commit.commandTag == "ROLLBACK" {
            throw PostgresError(
                kind: .server, code: .inFailedSQLTransaction,
                message: "transaction was aborted by an earlier error and has been rolled back")
        }
        return result
    }

    func rollbackQuietly() {
        guard let handle, PQstatus(handle) == CONNECTION_OK, !answerDeadlinePassed else { return }
        _ = try? exchange(handle, sql: "ROLLBACK") { PQsendQuery(handle, "ROLLBACK") }
        // What the rolled-back transaction wrote never became visible: nobody to wake.
        if transactionStatus == .idle { owedNotifications.removeAll() }
    }

    // MARK: Health

    /// The connection is open and libpq believes it is usable. Does no I/O.
    public var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK && !serverAnnouncedTermination && !answerDeadlinePassed
    }

    public var transactionStatus: TransactionStatus {
        guard let handle else { return .unknown }
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .inFailedTransaction
        default: return .unknown
        }
    }

    /// Cheap liveness probe for an idle connection, without a round trip: an idle session
    /// has nothing to say, so a readable socket means the server sent an error (e.g. it was
    /// terminated or is shutting down) or closed the connection.
    func isIdleConnectionAlive() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK, !serverAnnouncedTermination, !answerDeadlinePassed else { return false }
        // A terminated backend sends a FATAL message and then closes; one PQconsumeInput may
        // read only the message, so keep reading while the socket stays readable to reach EOF.
        for _ in 0..<4 {
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0 else { return false }
            let ready = poll(&descriptor, 1, 0)
            if ready == 0 { return PQisBusy(handle) == 0 }
            if ready < 0 { return false }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { return false }
            // Notifications for a pooled connection are not anyone's business; drop them.
            while let notification = PQnotifies(handle) { PQfreemem(notification) }
            if serverAnnouncedTermination { return false }
        }
        // Still chattering after several reads: not a quiet idle session, do not trust it.
        return false
    }

    /// Re-establishes the session (PQreset) and re-applies the session settings.
    public func reset() throws {
        guard let handle else { throw PostgresError(kind: .closed, message: "connection is closed") }
        preparedStatements.removeAll()
        statementCache.removeAll()
        owedNotifications.removeAll()
        serverAnnouncedTermination = false
        answerDeadlinePassed = false
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresResult.connectionError(handle, fallback: "reset failed")
        }
        try applySessionSettings()
    }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedStatements.removeAll()
        statementCache.removeAll()
    }

    public var isClosed: Bool { handle == nil }

    // MARK: Internals

    /// The raw PGconn for the listener, which drives PQconsumeInput/PQnotifies itself.
    func liveHandle() throws -> OpaquePointer {
        guard let handle else { throw PostgresError(kind: .closed, message: "connection is closed") }
        return handle
    }

    /// PQescapeIdentifier: double-quoted, with embedded quotes doubled.
    func quotedIdentifier(_ identifier: String) throws -> String {
        try escaped(identifier, PQescapeIdentifier, what: "identifier")
    }

    /// PQescapeLiteral: single-quoted, with embedded quotes and backslashes escaped.
    func quotedLiteral(_ text: String) throws -> String {
        try escaped(text, PQescapeLiteral, what: "literal")
    }

    private func escaped(_ text: String, _ escape: (OpaquePointer?, UnsafePointer<CChar>?, Int) -> UnsafeMutablePointer<CChar>?,
                         what: String) throws -> String {
        let connection = try liveHandle()
        guard let escaped = escape(connection, text, text.utf8.count) else {
            throw PostgresResult.connectionError(connection, fallback: "cannot escape \(what)")
        }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }

    /// libpq prints notices to stderr by default. Errors that matter reach callers as
    /// PostgresError, so notices are dropped — except that an unsolicited FATAL on an idle
    /// session marks the connection as going away.
    private func installNoticeReceiver() {
        guard let handle else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        PQsetNoticeReceiver(handle, { context, result in
            guard let context, let result,
                  let severity = PQresultErrorField(result, Int32(bitPattern: CLibPQDiagSeverityNonLocalized.rawValue))
            else { return }
            let level = String(cString: severity)
            // The receiver runs synchronously inside libpq calls made by the owning thread.
            let connection = Unmanaged<PostgresConnection>.fromOpaque(context).takeUnretainedValue()
            if level == "FATAL" || level == "PANIC" {
                connection.serverAnnouncedTermination = true
            } else if level == "NOTICE" {
                connection.noticeReceived(result)
            }
        }, context)
    }

    private static func connect(_ configuration: Configuration, connectTimeout: Duration) throws -> OpaquePointer {
        let timeoutSeconds = max(2, (connectTimeout.postgresMilliseconds + 999) / 1000)
        // Order matters: later keywords override what the expanded conninfo (dbname) sets, so
        // the TCP liveness settings are defaults an operator's URL may change.
        let settings: [(String, String)] = [
            ("fallback_application_name", configuration.applicationName),
        ] + Self.tcpLivenessSettings + [
            ("dbname", configuration.conninfo),
            ("connect_timeout", String(timeoutSeconds)),
            ("client_encoding", "UTF8"),
        ]
        let keywords = settings.map { strdup($0.0) }
        let values = settings.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        guard let handle = PQconnectdbParams(keywordPointers, valuePointers, 1) else {
            throw PostgresError(kind: .connection, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let error = PostgresResult.connectionError(handle, fallback: "connection failed")
            PQfinish(handle)
            throw PostgresError(kind: .connection, message: error.message)
        }
        return handle
    }

    /// Once per session: the settings as `set_config` calls in one statement. Behind a
    /// transaction pooler there is no session of ours to set, so `begin` sends them with
    /// every transaction instead (PostgresConnection+TransactionPooling.swift).
    private func applySessionSettings() throws {
        guard !configuration.transactionPooled else { return }
        var binds: [PostgresBind] = []
        var calls: [String] = []
        for (name, value) in sessionSettings {
            binds.append(PostgresBind(text: name))
            binds.append(PostgresBind(text: value))
            calls.append("set_config($\(binds.count - 1)::text, $\(binds.count)::text, false)")
        }
        do {
            try query(PostgresQuery(sql: "SELECT " + calls.joined(separator: ", "), binds: binds))
        } catch {
            close()
            throw error
        }
    }

    func withCParameters<Result>(
        _ binds: [PostgresBind],
        _ body: ([UnsafePointer<CChar>?], [UInt32]) throws -> Result
    ) throws -> Result {
        var copies: [UnsafeMutablePointer<CChar>?] = []
        copies.reserveCapacity(binds.count)
        defer { copies.forEach { free($0) } }
        for (index, bind) in binds.enumerated() {
            guard let text = bind.text else {
                copies.append(nil)
                continue
            }
            // A NUL would silently truncate the C string, changing the data; PostgreSQL text
            // cannot hold NUL anyway.
            guard !text.utf8.contains(0) else {
                throw PostgresError(kind: .misuse, message: "parameter $\(index + 1) contains a NUL byte")
            }
            copies.append(strdup(text))
        }
        return try body(copies.map { UnsafePointer($0) }, binds.map(\.typeOID))
    }
}
