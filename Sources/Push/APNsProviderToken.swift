import Credentials
import Foundation
import Synchronization

/// The provider authentication token APNs wants in `authorization: bearer`: an ES256 JWT
/// (`kid` the key id, `iss` the team id, `iat` now) signed with the team's `.p8` key.
///
/// Apple rejects a token older than an hour (403 `ExpiredProviderToken`) and one refreshed
/// more often than every 20 minutes on a connection (429 `TooManyProviderTokenUpdates`), so
/// one token is reused for `lifetime` (default 50 minutes, clamped to 20...60) and made anew
/// only after it, or when APNs says it expired — and then at most once per `lifetime`'s
/// lower bound, so a confused peer cannot make us re-sign for every push.
package final class APNsProviderToken: Sendable {
    package static let minimumLifetime: Duration = .seconds(20 * 60)
    package static let maximumLifetime: Duration = .seconds(60 * 60)

    private let key: JWSSigningKey
    private let keyID: String
    private let teamID: String
    private let lifetime: Duration
    private let now: @Sendable () -> Date
    private let current = Mutex<(token: String, issuedAt: Date)?>(nil)
    private let signings = Atomic<Int>(0)

    package init(key: JWSSigningKey, keyID: String, teamID: String, lifetime: Duration = .seconds(50 * 60),
                 now: @escaping @Sendable () -> Date = Date.init) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.lifetime = min(max(lifetime, Self.minimumLifetime), Self.maximumLifetime)
        self.now = now
    }

    /// Tokens signed so far (tests, metrics).
    package var signed: Int { signings.load(ordering: .relaxed) }

    /// The token to send: the cached one while younger than `lifetime`, else a new one.
    package func token() throws(CredentialsError) -> String {
        let now = now()
        if let cached = current.withLock({ $0 }), now.timeIntervalSince(cached.issuedAt) < lifetime.timeInterval {
            return cached.token
        }
        return try renew(at: now)
    }

    /// APNs answered `ExpiredProviderToken` for `rejected`: a new token, unless the one we hold
    /// is already newer than the rejected one (another push renewed it meanwhile).
    package func renew(rejected: String) throws(CredentialsError) -> String {
        if let cached = current.withLock({ $0 }), cached.token != rejected { return cached.token }
        return try renew(at: now())
    }

    private func renew(at now: Date) throws(CredentialsError) -> String {
        let token = try key.token(header: ["kid": keyID], claims: ["iss": teamID, "iat": Int(now.timeIntervalSince1970)])
        signings.add(1, ordering: .relaxed)
        current.withLock { $0 = (token, now) }
        return token
    }
}
