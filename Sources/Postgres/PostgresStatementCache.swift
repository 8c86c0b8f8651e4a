/// Which statements a connection has prepared under which server-side name: a bounded,
/// least-recently-used map from (SQL text, parameter types) to a generated name.
///
/// Why: an unnamed statement (PQexecParams) is parsed, analysed and planned on every call.
/// For the visibility-filtered reads that planning was most of PostgreSQL's work — inlining
/// `dispatch_json` alone re-parses its SQL body each time (bench/resources,
/// docs/explanations/decisions.md "Performance"). A named statement is parsed once per session and, after a few
/// executions, PostgreSQL may keep one generic plan for it.
///
/// Pure bookkeeping, no I/O: the connection prepares, executes and deallocates. Names are
/// unique for the life of the connection object (never reused after eviction or a reset), so
/// a stale name can never run another statement's SQL.
struct PostgresStatementCache {
    struct Key: Hashable {
        var sql: String
        var types: [UInt32]
    }

    private struct Entry {
        var name: String
        var lastUse: UInt64
    }

    /// Statements kept per connection; 0 turns caching off.
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    private var nextNumber = 0
    /// Names evicted (or abandoned) whose server-side statement still has to be deallocated.
    private(set) var pendingDeallocations: [String] = []

    /// Prefix of generated names; callers of `queryPrepared(name:)` must not use it.
    static let namePrefix = "dispatchd_s"

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var isEnabled: Bool { capacity > 0 }
    var count: Int { entries.count }

    /// The prepared name for `key`, marking it most recently used.
    mutating func name(for key: Key) -> String? {
        guard var entry = entries[key] else { return nil }
        clock += 1
        entry.lastUse = clock
        entries[key] = entry
        return entry.name
    }

    /// A fresh name for a statement about to be prepared. Not recorded until `insert`, so a
    /// statement that fails to prepare leaves no entry behind.
    mutating func makeName() -> String {
        nextNumber += 1
        return Self.namePrefix + String(nextNumber)
    }

    /// Records a successfully prepared statement, evicting the least recently used one when
    /// full (its name is queued for deallocation).
    mutating func insert(_ key: Key, name: String) {
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
            pendingDeallocations.append(oldest.value.name)
        }
        clock += 1
        entries[key] = Entry(name: name, lastUse: clock)
    }

    /// Forgets `key`; `deallocate` queues its server-side statement for DEALLOCATE (false
    /// when the server no longer has it).
    mutating func remove(_ key: Key, deallocate: Bool) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        if deallocate { pendingDeallocations.append(entry.name) }
    }

    /// Forgets everything, e.g. after a reconnect or when the server dropped every prepared
    /// statement (DISCARD ALL / DEALLOCATE ALL): there is nothing left to deallocate.
    mutating func removeAll() {
        entries.removeAll()
        pendingDeallocations.removeAll()
    }

    mutating func takePendingDeallocations() -> [String] {
        defer { pendingDeallocations.removeAll() }
        return pendingDeallocations
    }

    /// Only plain DML and queries are prepared; anything else (BEGIN, SET, LISTEN, DDL, …)
    /// keeps the unnamed path, where preparing would buy nothing or change semantics.
    static func isCacheable(_ sql: String) -> Bool {
        var keyword = ""
        for scalar in sql.unicodeScalars {
            if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar == "(" {
                if keyword.isEmpty { continue }
                break
            }
            keyword.unicodeScalars.append(scalar)
            if keyword.count > 6 { return false }
        }
        switch keyword.uppercased() {
        case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "VALUES": return true
        default: return false
        }
    }
}
