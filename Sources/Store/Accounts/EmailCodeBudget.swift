import Foundation
import Postgres

/// How many wrong e-mail codes may be tried, and by whom (migration 0030;
/// docs/app-developers/email-auth.md states the bounds and why).
///
/// A wrong guess never voids anything. It is recorded against each live code it was tested
/// against, with the guesser's address, and a code stops being tested:
/// - for one source after `perCodeAndSource` wrong tests from it (so a NAT neighbour or a
///   scanner cannot spend it for everyone), and
/// - for everyone after `perAccountSinceIssue` wrong tests against its account since it was
///   issued, from any source and against any of the account's codes: a guess tried against
///   two live codes counts twice, so live codes side by side do not multiply the rate.
/// A code that is not tested any more answers like a wrong one (403), so nobody learns
/// whether an address has live codes; the mail's link is never affected, and a new code
/// starts with a budget of its own. A source that sends `perSource` wrong codes in
/// `sourceWindow` (any addresses, known or not) is refused with 429: one client spraying
/// many accounts, stopped without touching anyone else.
public enum EmailCodeBudget {
    public static let perCodeAndSource = 5
    public static let perAccountSinceIssue = 10
    public static let perSource = 20
    public static let sourceWindow: Duration = .seconds(15 * 60)

    static var windowSeconds: Int64 { sourceWindow.components.seconds }

    /// Seconds until `source` may guess again, or nil when it may now.
    static func sourceWait(_ source: String, on connection: PostgresConnection) throws -> Int? {
        let rows = try connection.query("""
            SELECT ceil(extract(epoch FROM first_at + make_interval(secs => \(windowSeconds)) - now()))::bigint AS wait
            FROM (SELECT min(failed_at) AS first_at FROM auth_email_code_failures
                  WHERE client_address = \(source) AND failed_at > now() - make_interval(secs => \(windowSeconds))
                  GROUP BY guess_id ORDER BY min(failed_at) DESC OFFSET \(perSource - 1) LIMIT 1) AS limiting
            """)
        guard let wait: Int64 = try rows.first?.decode("wait") else { return nil }
        return max(1, Int(wait))
    }

    /// Of `tokens` (locked live codes), the ids `source` may still test.
    static func testable(_ tokens: [UUID], source: String, on connection: PostgresConnection) throws -> Set<UUID> {
        guard !tokens.isEmpty else { return [] }
        let rows = try connection.query("""
            SELECT t.id FROM auth_email_tokens t
            WHERE t.id = ANY(\(tokens))
              AND (SELECT count(*) FROM auth_email_code_failures f
                   WHERE f.token_id = t.id AND f.client_address = \(source)) < \(perCodeAndSource)
              AND (SELECT count(*) FROM auth_email_code_failures f
                   WHERE f.user_id = t.user_id AND f.failed_at >= t.created_at) < \(perAccountSinceIssue)
            """)
        return Set(try rows.map { try $0.decode("id", as: UUID.self) })
    }

    /// Records one wrong guess by `source`, tested against `tested` (token id, user id) pairs.
    static func recordWrong(tested: [(token: UUID, user: UUID)], source: String, on connection: PostgresConnection) throws {
        let guess = UUID()
        if tested.isEmpty {
            try connection.execute("INSERT INTO auth_email_code_failures (guess_id, client_address) VALUES (\(guess), \(source))")
        } else {
            try connection.execute("""
                INSERT INTO auth_email_code_failures (guess_id, token_id, user_id, client_address)
                SELECT \(guess), token, person, \(source) FROM unnest(\(tested.map(\.token))::uuid[], \(tested.map(\.user))::uuid[]) AS u(token, person)
                """)
        }
        if Int.random(in: 0..<100) == 0 {
            try connection.execute("""
                DELETE FROM auth_email_code_failures WHERE token_id IS NULL AND failed_at < now() - make_interval(secs => \(windowSeconds))
                """)
        }
    }
}
