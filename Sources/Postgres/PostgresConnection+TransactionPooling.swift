/// Sessions behind a transaction-pooling PgBouncer (`Configuration.transactionPooled`).
///
/// There, each transaction (and each statement outside one) may run on a different server
/// session, shared with other clients. So nothing session-scoped is ours to keep: no named
/// prepared statements (`query` and `queryPrepared` run unnamed), and the settings that
/// would be set once per session travel with each transaction as `SET LOCAL`, in the same
/// round trip as its BEGIN. `SET` needs no snapshot, so a REPEATABLE READ transaction still
/// takes its snapshot at the caller's first statement. A statement outside a transaction
/// runs with the server's (role's) defaults: docs/operators/pooling.md has the operator set
/// them with `ALTER ROLE … SET`.
extension PostgresConnection {
    /// What every session (or, pooled, every transaction) runs with.
    var sessionSettings: [(String, String)] {
        // JIT pays off for long analytic queries, not for this OLTP workload: a visibility
        // subplan's inflated cost estimate crosses jit_optimize_above_cost and a 130 ms sync
        // page then spends another 780 ms compiling (bench/explain, 100k tasks).
        var settings: [(String, String)] = [("jit", "off")]
        if let timeout = configuration.statementTimeout {
            settings.append(("statement_timeout", String(timeout.postgresMilliseconds)))
        }
        if let timeout = configuration.idleInTransactionSessionTimeout {
            settings.append(("idle_in_transaction_session_timeout", String(timeout.postgresMilliseconds)))
        }
        if let zone = configuration.timeZone {
            settings.append(("TimeZone", zone))
        }
        return settings + afterCommitSettings
    }

    /// BEGIN (with `isolation`), plus, behind a transaction pooler, the session settings as
    /// `SET LOCAL`: one round trip either way.
    func begin(isolation: PostgresIsolationLevel?) throws {
        let begin = isolation.map { "BEGIN ISOLATION LEVEL \($0.rawValue)" } ?? "BEGIN"
        guard configuration.transactionPooled else {
            try execute(PostgresQuery(sql: begin, binds: []))
            return
        }
        var script = [begin]
        for (name, value) in sessionSettings {
            script.append("SET LOCAL \(try quotedIdentifier(name)) = \(try quotedLiteral(value))")
        }
        try runTrustedScript(script.joined(separator: "; "))
    }
}
