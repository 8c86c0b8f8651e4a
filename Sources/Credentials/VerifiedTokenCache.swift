import Foundation
import Synchronization

/// Remembers access tokens whose signature has already been checked, so a client presenting
/// the same token on every request pays for base64, JSON and HMAC once, not per request.
///
/// Why: on `GET /v1/tasks/{id}` token verification was about half of dispatchd's own CPU per
/// request (perf; docs/explanations/decisions.md "Performance"). What stays per request: the expiry check (a
/// cached token still expires at its `exp`) and everything the caller does with the claims
/// (the revocation set, the account lookup).
///
/// Safe because a verification's outcome depends only on the token's exact text and the
/// signing secret, which is fixed for the life of the `JWTSigner`: the cache is keyed by the
/// whole token, and only tokens that verified enter it. Bounded by `capacity`; when full,
/// expired entries go first, then everything (re-verifying is only slower, never wrong).
public final class VerifiedTokenCache: Sendable {
    private let signer: JWTSigner
    private let capacity: Int
    private let claimsByToken = Mutex<[String: AccessTokenClaims]>([:])

    public init(signer: JWTSigner, capacity: Int = 10_000) {
        self.signer = signer
        self.capacity = max(0, capacity)
    }

    /// Same contract as `JWTSigner.verify`: the claims of a valid, unexpired token, or the reason not.
    public func verify(_ token: String, now: Date = Date()) throws(CredentialsError) -> AccessTokenClaims {
        let cached = claimsByToken.withLock { $0[token] }
        if let cached {
            guard Double(cached.exp) > now.timeIntervalSince1970 else {
                claimsByToken.withLock { _ = $0.removeValue(forKey: token) }
                throw .tokenExpired
            }
            return cached
        }
        let claims = try signer.verify(token, now: now)
        guard capacity > 0 else { return claims }
        claimsByToken.withLock { cache in
            if cache.count >= capacity {
                cache = cache.filter { Double($0.value.exp) > now.timeIntervalSince1970 }
                if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            }
            cache[token] = claims
        }
        return claims
    }

    /// Tokens currently remembered (tests, metrics).
    public var count: Int { claimsByToken.withLock { $0.count } }
}
