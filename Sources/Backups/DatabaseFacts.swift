import Foundation
import Postgres

/// What a backup's manifest records about the database, read inside the dump's snapshot, and
/// what `restore --verify` reads back from the restored copy to compare.
package struct DatabaseFacts {
    package var takenAt: String
    package var snapshot: String
    package var database: String
    package var serverVersion: String
    package var serverVersionNum: Int
    package var migrations: [BackupManifest.Migration]
    package var rowCounts: [String: Int]
    /// Roles that own or hold privileges on the schema's objects, by name only: a backup
    /// carries no credentials and no statements.
    package var roles: [String]
    package var epoch: String?

    package static func read(on connection: PostgresConnection) throws -> DatabaseFacts {
        guard let server = try connection.query("""
            SELECT current_setting('server_version') AS version, current_setting('server_version_num')::int AS number,
                   current_database() AS database,
                   to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS taken_at,
                   pg_current_snapshot()::text AS snapshot,
                   to_regclass('schema_migrations') IS NOT NULL AS migrated,
                   to_regclass('dispatch_identity') IS NOT NULL AS has_epoch
            """).first else { throw BackupError("the database answered no server facts") }
        var facts = DatabaseFacts(takenAt: try server.decode("taken_at"), snapshot: try server.decode("snapshot"), database: try server.decode("database"),
                                  serverVersion: try server.decode("version"), serverVersionNum: try server.decode("number"),
                                  migrations: [], rowCounts: [:], roles: [], epoch: nil)
        if try server.decode("migrated", as: Bool.self) {
            facts.migrations = try connection.query("SELECT version, name, checksum FROM schema_migrations ORDER BY version").map {
                BackupManifest.Migration(version: try $0.decode("version"), name: try $0.decode("name"), checksum: try $0.decode("checksum"))
            }
        }
        if try server.decode("has_epoch", as: Bool.self) {
            facts.epoch = try connection.query("SELECT epoch FROM dispatch_identity").first?.decode("epoch")
        }
        facts.rowCounts = try rowCounts(on: connection)
        facts.roles = try connection.query("""
            SELECT r.rolname AS name
            FROM pg_roles r
            WHERE r.rolname !~ '^pg_' AND r.oid IN (
                SELECT relowner FROM pg_class WHERE relnamespace = current_schema()::regnamespace
                UNION SELECT proowner FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
                UNION SELECT (aclexplode(relacl)).grantee FROM pg_class
                      WHERE relnamespace = current_schema()::regnamespace AND relacl IS NOT NULL)
            ORDER BY 1
            """).map { try $0.decode("name") }
        return facts
    }

    /// Rows per table (ordinary and partitioned) of the current schema.
    package static func rowCounts(on connection: PostgresConnection) throws -> [String: Int] {
        let tables = try connection.query("""
            SELECT relname AS name, quote_ident(relname) AS quoted FROM pg_class
            WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') ORDER BY relname
            """)
        var counts: [String: Int] = [:]
        for table in tables {
            let quoted: String = try table.decode("quoted")
            counts[try table.decode("name")] = try connection.query("SELECT count(*)::int8 AS n FROM \(unsafeSQL: quoted)").first?.decode("n") ?? 0
        }
        return counts
    }
}
