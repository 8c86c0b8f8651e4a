/// The rows of one result, copied out of libpq so they outlive the PGresult and can be
/// passed between threads.
public struct PostgresRows: RandomAccessCollection, Sendable {
    public let columns: PostgresColumns
    let values: [[String?]]
    /// Rows affected by INSERT/UPDATE/DELETE/MERGE (or returned by SELECT); 0 for other commands.
    public let affectedRows: Int
    /// The command tag, e.g. `INSERT 0 1`, `UPDATE 3`, `COMMIT`.
    public let commandTag: String
    /// Bytes libpq held for the result (`PQresultMemorySize`): what one statement made this
    /// process keep at once, before the rows were copied out.
    public internal(set) var resultBytes = 0

    init(columns: PostgresColumns, values: [[String?]], affectedRows: Int, commandTag: String) {
        self.columns = columns
        self.values = values
        self.affectedRows = affectedRows
        self.commandTag = commandTag
    }

    public var startIndex: Int { values.startIndex }
    public var endIndex: Int { values.endIndex }

    public subscript(position: Int) -> PostgresRow {
        PostgresRow(columns: columns, values: values[position])
    }
}

/// Column names of a result, shared by all its rows.
public final class PostgresColumns: Sendable {
    public let names: [String]
    private let indexByName: [String: Int]

    init(names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        // With duplicate names the first column wins, like most drivers.
        for (position, name) in names.enumerated() where index[name] == nil {
            index[name] = position
        }
        self.indexByName = index
    }

    func index(of name: String) -> Int? { indexByName[name] }
}
