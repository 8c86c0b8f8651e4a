import CLibPQ
import Foundation

/// Turns a PGresult into rows or an error, always freeing it.
enum PostgresResult {
    static func consume(_ result: OpaquePointer?, connection: OpaquePointer) throws -> PostgresRows {
        guard let result else {
            throw connectionError(connection, fallback: "libpq returned no result")
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            var rows = rows(from: result)
            rows.resultBytes = Int(PQresultMemorySize(result))
            return rows
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR, PGRES_BAD_RESPONSE:
            throw error(from: result, connection: connection)
        default:
            let status = String(cString: PQresStatus(PQresultStatus(result)))
            throw PostgresError(kind: .protocolViolation, message: "unsupported result status \(status) (COPY is not supported)")
        }
    }

    static func rows(from result: OpaquePointer) -> PostgresRows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let names = (0..<columnCount).map { column in
            PQfname(result, Int32(column)).map { String(cString: $0) } ?? ""
        }
        var values: [[String?]] = []
        values.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var rowValues: [String?] = []
            rowValues.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    rowValues.append(nil)
                } else {
                    rowValues.append(PQgetvalue(result, Int32(row), Int32(column)).map { String(cString: $0) } ?? "")
                }
            }
            values.append(rowValues)
        }
        let commandTag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        let affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        return PostgresRows(columns: PostgresColumns(names: names), values: values, affectedRows: affected, commandTag: commandTag)
    }

    static func error(from result: OpaquePointer, connection: OpaquePointer) -> PostgresError {
        func field(_ name: CLibPQDiagField) -> String? {
            PQresultErrorField(result, Int32(bitPattern: name.rawValue)).map { String(cString: $0) }
        }
        let code = field(CLibPQDiagSQLState).map(PostgresError.Code.init(rawValue:))
        let fallback = PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
        let message = field(CLibPQDiagMessagePrimary) ?? trimmed(fallback)
        let lost = PQstatus(connection) == CONNECTION_BAD
        return PostgresError(
            kind: lost || (code?.isConnectionError ?? false) ? .connection : .server,
            code: code,
            message: message.isEmpty ? "unknown server error" : message,
            detail: field(CLibPQDiagMessageDetail),
            hint: field(CLibPQDiagMessageHint),
            constraint: field(CLibPQDiagConstraintName),
            table: field(CLibPQDiagTableName),
            column: field(CLibPQDiagColumnName),
            severity: field(CLibPQDiagSeverityNonLocalized)
        )
    }

    static func connectionError(_ connection: OpaquePointer, fallback: String) -> PostgresError {
        let message = trimmed(PQerrorMessage(connection).map { String(cString: $0) } ?? "")
        let kind: PostgresError.Kind = PQstatus(connection) == CONNECTION_BAD ? .connection : .protocolViolation
        return PostgresError(kind: kind, message: message.isEmpty ? fallback : message)
    }

    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
