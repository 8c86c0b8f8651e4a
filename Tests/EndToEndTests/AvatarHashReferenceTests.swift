@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Postgres
import Testing
import TestSupport

/// `users.avatar_hash` references `avatars` (migration 0014), so any surface that writes it —
/// `/v1` through `UserStore`, `/rest/v1` through its own SQL — gets 422 `unknown_avatar` for a
/// hash no image has, from the one database error mapping of its family.
@Suite struct AvatarHashReferenceTests {
    @Test func aHashNoImageHasIsRefusedByTheDatabaseAndMappedOnEverySurface() throws {
        let database = try TestDatabase.create()
        try database.pool.execute("INSERT INTO users (name, email) VALUES ('A', 'a@example.com')")
        let unknown = String(repeating: "c", count: 64)
        let error = #expect(throws: PostgresError.self) {
            try database.pool.execute("UPDATE users SET avatar_hash = \(unknown)")
        }
        let violation = try #require(error)
        #expect(DatabaseErrorMapping.httpError(for: violation).code == "unknown_avatar")
        #expect(DatabaseErrorMapping.httpError(for: violation).status.code == 422)
        #expect(RestErrorMapping.restError(for: violation).code == "unknown_avatar")
        #expect(RestErrorMapping.restError(for: violation).status.code == 422)

        try database.pool.execute("""
            INSERT INTO avatars (hash, content_type, bytes) VALUES (\(unknown), 'image/png', '\\x00'::bytea)
            """)
        try database.pool.execute("UPDATE users SET avatar_hash = \(unknown)")
    }
}
