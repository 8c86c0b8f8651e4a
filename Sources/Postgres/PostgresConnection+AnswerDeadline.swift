import CLibPQ
import Foundation

/// Every statement waits for its answer at most `statement_timeout` plus a margin.
///
/// Why: libpq's blocking calls wait on the socket without end. TCP keepalives and
/// `tcp_user_timeout` (set at connect) end the wait when the peer's host is gone, but not when
/// something in between holds the connection open and stays silent (a stalled proxy or pooler,
/// a frozen server): the kernel acknowledges every probe. PostgreSQL itself cancels a statement
/// at `statement_timeout`, so an answer that has not come a margin later will not come: the
/// statement is given up, its connection closed, and the caller gets a connection error (503).
///
/// How: the statement is sent with libpq's asynchronous calls and its results are awaited with
/// poll(2) until the deadline. Without a `statement_timeout` (migrations) there is no deadline.
extension PostgresConnection {
    /// How long after PostgreSQL's own cancellation an answer is still waited for.
    public static let answerMargin: Duration = .seconds(2)

    /// nil: wait as long as it takes.
    var answerDeadline: Duration? {
        answerDeadlineLifted ? nil : configuration.statementTimeout.map { $0 + Self.answerMargin }
    }

    /// Sends with `send` (a `PQsend…` call) and returns the last result, or throws the first
    /// error, as PQexec would. `executes`: the statement runs (not a mere PQsendPrepare); when
    /// it may commit (an autocommit statement, or COMMIT) and the connection is lost after it
    /// was sent, the error says the outcome is unknown.
    func exchange(_ connection: OpaquePointer, sql: String, executes: Bool = true, _ send: () -> Int32) throws -> PostgresRows {
        let mayCommit = executes && Self.mayCommit(sql, outsideTransaction: PQtransactionStatus(connection) == PQTRANS_IDLE)
        guard send() == 1 else { throw PostgresResult.connectionError(connection, fallback: "could not send the statement") }
        do {
            return try awaitResults(connection)
        } catch var error as PostgresError where mayCommit && error.isConnectionError {
            error.outcomeUnknown = true
            throw error
        }
    }

    /// An autocommit statement commits by itself; inside a transaction only COMMIT does.
    /// BEGIN and ROLLBACK change nothing whatever happens to their answer.
    static func mayCommit(_ sql: String, outsideTransaction: Bool) -> Bool {
        let head = sql.prefix(16).uppercased()
        if head.hasPrefix("COMMIT") || head.hasPrefix("END") { return true }
        return outsideTransaction && !head.hasPrefix("BEGIN") && !head.hasPrefix("START") && !head.hasPrefix("ROLLBACK")
    }

    private func awaitResults(_ connection: OpaquePointer) throws -> PostgresRows {
        let deadline = answerDeadline.map { ContinuousClock.now + $0 }
        var last: PostgresRows?
        var failure: PostgresError?
        while true {
            try awaitReadable(connection, until: deadline)
            guard let result = PQgetResult(connection) else { break }
            do {
                last = try PostgresResult.consume(result, connection: connection)
            } catch let error as PostgresError {
                if failure == nil { failure = error }
            }
            if PQstatus(connection) == CONNECTION_BAD { break }
        }
        if let failure { throw failure }
        guard let last else { throw PostgresResult.connectionError(connection, fallback: "libpq returned no result") }
        return last
    }

    /// Reads until libpq holds a whole result (or the connection failed, which PQgetResult
    /// then reports), giving the connection up at the deadline.
    private func awaitReadable(_ connection: OpaquePointer, until deadline: ContinuousClock.Instant?) throws {
        while PQisBusy(connection) == 1 {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw abandon(connection) }
                timeout = Int32(clamping: left.postgresMilliseconds)
            }
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0 else { return }
            let ready = poll(&descriptor, 1, timeout)
            if ready < 0 && errno != EINTR { return }
            if ready > 0 && PQconsumeInput(connection) == 0 { return }
        }
    }

    /// The statement is still running or lost: this session can never be used again. Its
    /// socket is shut down (libpq then sees the connection as broken) rather than freed, since
    /// callers up the stack still hold the PGconn.
    private func abandon(_ connection: OpaquePointer) -> PostgresError {
        answerDeadlinePassed = true
        faultCounters?.recordUnansweredStatement()
        let socket = PQsocket(connection)
        if socket >= 0 {
            shutdown(socket, Int32(SHUT_RDWR))
            _ = PQconsumeInput(connection)
        }
        let waited = answerDeadline.map { "\($0)" } ?? "the deadline"
        return PostgresError(kind: .connection, message: "the database sent no answer within \(waited); connection given up")
    }
}

extension PostgresConnection {
    /// TCP keepalives and a user timeout for every connection (libpq ignores them on unix
    /// sockets): a peer whose host died or became unreachable is noticed within about 11 s
    /// whether the connection is idle (keepalive: 5 s idle, then 3 probes 2 s apart) or has
    /// unacknowledged data in flight (`tcp_user_timeout` 10 s), instead of the kernel's
    /// default of minutes. An operator's DATABASE_URL may set other values.
    static let tcpLivenessSettings: [(String, String)] = [
        ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "10000"),
    ]
}
