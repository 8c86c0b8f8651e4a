import Foundation
import Logging
import Postgres

/// The roles a backup's GRANTs name, from the (signed) manifest: names only. A restore creates
/// the missing ones itself, NOLOGIN and without any attribute, as quoted identifiers of names
/// it has checked; no statement ever comes from the file. Give one LOGIN and a password with
/// `ALTER ROLE` afterwards if it should sign in.
package enum BackupRoles {
    /// A role name a restore will create: what PostgreSQL allows unquoted plus `-` and `.`
    /// (common in service accounts), never a reserved `pg_` name.
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, !name.hasPrefix("pg_") else { return false }
        let letter = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_") }
        let digit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        return letter(first) && name.utf8.allSatisfy { letter($0) || digit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    /// `"name"`; only ever called with a valid name, which holds no quote.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    package static func createMissing(_ roles: [String], on connection: PostgresConnection, logger: Logger) {
        for role in roles {
            guard isValid(role) else {
                logger.warning("a role name of the backup is not accepted; not created", metadata: ["role": .string(String(role.prefix(80)))])
                continue
            }
            do {
                guard try connection.query("SELECT 1 FROM pg_roles WHERE rolname = \(role)").first == nil else { continue }
                try connection.execute("CREATE ROLE \(unsafeSQL: quoted(role)) NOLOGIN")
                logger.info("role of the backup created (NOLOGIN)", metadata: ["role": .string(role)])
            } catch {
                logger.warning("could not create a role of the backup", metadata: ["role": .string(role), "error": .string(String(describing: error))])
            }
        }
    }

    /// The roles that do not exist on the server.
    package static func missing(_ roles: [String], on connection: PostgresConnection) throws -> [String] {
        try roles.filter { try connection.query("SELECT 1 FROM pg_roles WHERE rolname = \($0)").first == nil }
    }
}
