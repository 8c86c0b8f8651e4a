import Foundation
import Postgres
import Testing
import TestSupport

/// `status_changes_status_valid` is a function call since 0027 (its stored CASE was re-read on
/// every write); it must accept and refuse exactly what the CASE of 0001 did.
@Suite struct StatusChangeCheckTests {
    /// The CASE of 0001, verbatim, as the reference.
    static let original = """
        CASE e WHEN 'listing' THEN n IN ('draft', 'active', 'pending', 'closed', 'deleted')
                                AND (o IS NULL OR o IN ('draft', 'active', 'pending', 'closed', 'deleted'))
               ELSE n IN ('open', 'in_progress', 'completed', 'deleted')
                    AND (o IS NULL OR o IN ('open', 'in_progress', 'completed', 'deleted')) END
        """

    /// Every entity type, old status (NULL, each of both vocabularies, an unknown one) and new
    /// status: a CHECK passes unless its expression is false, so `IS NOT FALSE` is compared.
    @Test func theFunctionDecidesLikeTheCaseItReplaced() throws {
        let database = try TestDatabase.create()
        let row = try #require(try database.pool.query(PostgresQuery(sql: """
            WITH statuses (s) AS (VALUES ('draft'), ('active'), ('pending'), ('closed'), ('deleted'), ('open'),
                                         ('in_progress'), ('completed'), ('nonsense')),
            cases AS (
                SELECT e, o.s AS o, n.s AS n FROM (VALUES ('task'), ('activity'), ('listing')) AS types (e),
                    (SELECT s FROM statuses UNION ALL SELECT NULL) o, statuses n)
            SELECT count(*)::int AS cases,
                   count(*) FILTER (WHERE (\(Self.original)) IS NOT FALSE)::int AS accepted,
                   count(*) FILTER (WHERE ((\(Self.original)) IS NOT FALSE)
                                    <> (dispatch_status_change_valid(e, o, n) IS NOT FALSE))::int AS different
            FROM cases
            """)).first)
        #expect(try row.decode("cases", as: Int.self) == 3 * 10 * 9)
        #expect(try row.decode("accepted", as: Int.self) == 2 * 5 * 4 + 6 * 5)  // work items 2 × (1+4) × 4, listings (1+5) × 5
        #expect(try row.decode("different", as: Int.self) == 0)
    }

    /// The table's constraint is that function, under its old name.
    @Test func theTableRefusesAStatusOfTheOtherVocabulary() throws {
        let database = try TestDatabase.create()
        let user = try #require(try database.pool.query("""
            INSERT INTO users (name, email) VALUES ('Checker', 'checker@x.io') RETURNING id
            """).first).decode("id", as: UUID.self)
        try database.pool.execute("""
            INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by)
            VALUES ('listing', \(UUID()), 'draft', 'active', \(user)), ('task', \(UUID()), NULL, 'open', \(user))
            """)
        let error = try #require(throws: PostgresError.self) {
            try database.pool.execute("""
                INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by)
                VALUES ('task', \(UUID()), 'open', 'active', \(user))
                """)
        }
        #expect(error.code == .checkViolation)
        #expect(error.constraint == "status_changes_status_valid")
    }
}
