import Credentials
import Foundation
import Postgres

/// The role `restore --verify` loads a backup as. pg_restore runs whatever SQL the dump holds
/// (a crafted dump can hold anything), so it must not run as a superuser, who can run programs
/// on the database host (`COPY … TO PROGRAM`) and read or change every database. When the
/// configured user is a superuser (the embedded cluster's `postgres`), verify creates a
/// throw-away LOGIN role with no attributes, owning only the scratch database, and drops both
/// afterwards. A configured user that is not a superuser loads as itself.
package struct VerificationRole {
    /// Nil when the configured user is used as it is.
    package let name: String?
    /// The scratch database's server, signed in as the role.
    package let target: DatabaseTarget

    /// Creates the scratch database `database`, owned by the role it loads as.
    package static func create(database: String, on admin: PostgresConnection, target: DatabaseTarget) throws -> VerificationRole {
        let superuser: Bool = try admin.query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").first?.decode("rolsuper") ?? true
        guard superuser else {
            try admin.execute("CREATE DATABASE \(unsafeSQL: database)")
            return VerificationRole(name: nil, target: target)
        }
        // The name is the scratch database's (made here, `dispatch_verify_<hex>`); the password
        // is base64url, so both are safe as an identifier and inside a literal.
        let password = try SecureRandom.token(byteCount: 24)
        try admin.execute("""
            CREATE ROLE \(unsafeSQL: database) LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
            PASSWORD '\(unsafeSQL: password)'
            """)
        do {
            try admin.execute("CREATE DATABASE \(unsafeSQL: database) OWNER \(unsafeSQL: database)")
        } catch {
            _ = try? admin.execute("DROP ROLE IF EXISTS \(unsafeSQL: database)")
            throw error
        }
        return VerificationRole(name: database, target: target.signedIn(as: database, password: password))
    }

    /// Drops the role (after its database). False when it could not.
    package func drop(on admin: PostgresConnection) -> Bool {
        guard let name else { return true }
        return (try? admin.execute("DROP ROLE IF EXISTS \(unsafeSQL: name)")) != nil
    }
}
