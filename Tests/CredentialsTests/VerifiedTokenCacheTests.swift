import Credentials
import Foundation
import Testing

@Suite struct VerifiedTokenCacheTests {
    let signer = JWTSigner(secret: String(repeating: "s", count: 32))

    func token(sub: String = "u", exp: Int64 = 2_000) throws -> String {
        try signer.sign(AccessTokenClaims(sub: sub, iat: 1_000, exp: exp, sid: "s"))
    }

    @Test func aVerifiedTokenIsRememberedAndAnswersTheSameClaims() throws {
        let cache = VerifiedTokenCache(signer: signer)
        let token = try token()
        let first = try cache.verify(token, now: Date(timeIntervalSince1970: 1_500))
        let second = try cache.verify(token, now: Date(timeIntervalSince1970: 1_600))
        #expect(first == second)
        #expect(first.sub == "u")
        #expect(cache.count == 1)
    }

    @Test func aRememberedTokenStillExpires() throws {
        let cache = VerifiedTokenCache(signer: signer)
        let token = try token()
        _ = try cache.verify(token, now: Date(timeIntervalSince1970: 1_500))
        #expect(throws: CredentialsError.tokenExpired) { try cache.verify(token, now: Date(timeIntervalSince1970: 2_000)) }
        #expect(cache.count == 0)
    }

    @Test func rejectedTokensAreNeverRemembered() throws {
        let cache = VerifiedTokenCache(signer: signer)
        let foreign = try JWTSigner(secret: String(repeating: "t", count: 32)).sign(AccessTokenClaims(sub: "u", iat: 1_000, exp: 2_000, sid: "s"))
        for _ in 0..<2 {
            #expect(throws: CredentialsError.tokenSignatureInvalid) { try cache.verify(foreign, now: Date(timeIntervalSince1970: 1_500)) }
        }
        // A tampered copy of a remembered token is a different text: verified, and refused.
        let good = try token()
        _ = try cache.verify(good, now: Date(timeIntervalSince1970: 1_500))
        var parts = good.split(separator: ".").map(String.init)
        parts[1] = try token(sub: "admin").split(separator: ".").map(String.init)[1]
        #expect(throws: CredentialsError.tokenSignatureInvalid) { try cache.verify(parts.joined(separator: "."), now: Date(timeIntervalSince1970: 1_500)) }
        #expect(throws: CredentialsError.tokenMalformed) { try cache.verify("a.b", now: Date(timeIntervalSince1970: 1_500)) }
        #expect(cache.count == 1)
    }

    @Test func theCacheStaysWithinItsCapacity() throws {
        let cache = VerifiedTokenCache(signer: signer, capacity: 3)
        let now = Date(timeIntervalSince1970: 1_500)
        for index in 0..<10 {
            _ = try cache.verify(try token(sub: "u\(index)"), now: now)
            #expect(cache.count <= 3)
        }
        // Each still verifies (again) after being dropped.
        #expect(try cache.verify(try token(sub: "u0"), now: now).sub == "u0")
    }
}
