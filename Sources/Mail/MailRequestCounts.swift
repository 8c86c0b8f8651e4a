import Foundation
import Postgres

/// The hourly caps on requests that send mail, per client address (`source`) and per
/// recipient (`address`), shared by every instance (`mail_request_counts`, migration 0030).
///
/// Why not only one global cap: a cap everyone shares is a switch anyone can flip. Nine
/// addresses asked for every 60 s reach 500 mails an hour, and every mail request then fails
/// for everybody. Counted per source, the asker meets its own limit; counted per address, no
/// one address can be mailed without end. (The global cap stays, as a safety valve for the
/// relay's reputation; `AuthService` lets administrators' invitations pass it.)
///
/// Windows are fixed hours from a key's first request: cheap (one upsert), and at most twice
/// the limit can pass across a window's edge, which is fine for a cap on mail.
public enum MailRequestCounts {
    public enum Scope: String, Sendable {
        case source
        case address
    }

    /// Counts one request of `key` (case-insensitive) in `scope`: nil when it is within
    /// `limit` this hour, else how long until the window ends. Call it inside the request's
    /// transaction: a request refused later (by another cap) rolls its count back.
    public static func take(_ scope: Scope, _ key: String, limit: Int, on connection: PostgresConnection) throws -> Duration? {
        let rows = try connection.query("""
            INSERT INTO mail_request_counts AS c (scope, key, window_start, requests) VALUES (\(scope.rawValue), lower(\(key)), now(), 1)
            ON CONFLICT (scope, key) DO UPDATE SET
                window_start = CASE WHEN c.window_start <= now() - interval '1 hour' THEN now() ELSE c.window_start END,
                requests = CASE WHEN c.window_start <= now() - interval '1 hour' THEN 1 ELSE c.requests + 1 END
            RETURNING requests, extract(epoch FROM window_start + interval '1 hour' - now())::float8 AS wait
            """)
        guard let row = rows.first, Int(try row.decode("requests", as: Int32.self)) > limit else { return nil }
        let wait: Double = try row.decode("wait")
        return .milliseconds(Int64((max(wait, 0.001) * 1000).rounded(.up)))
    }
}
