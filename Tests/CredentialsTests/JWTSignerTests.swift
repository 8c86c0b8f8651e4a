import Credentials
import Foundation
import Testing

@Suite struct JWTSignerTests {
    let signer = JWTSigner(secret: Array("0123456789abcdef0123456789abcdef".utf8))
    let userID = "6f1c1d56-8a4e-4a59-9a8e-2b1f3c4d5e6f"

    func claims(iat: Int64 = 1_000_000, exp: Int64 = 1_000_900) -> AccessTokenClaims {
        AccessTokenClaims(sub: userID, iat: iat, exp: exp, sid: "s1")
    }

    @Test func signedToken_verifiesWithSameSecret_returnsClaims() throws {
        let token = signer.sign(claims())
        #expect(try signer.verify(token, now: 1_000_100) == claims())
    }

    @Test func token_signedWithOtherSecret_isRejected() {
        let other = JWTSigner(secret: Array("another-secret-another-secret-xx".utf8))
        #expect(throws: JWTError.badSignature) { try signer.verify(other.sign(claims()), now: 1_000_100) }
    }

    @Test func token_pastExpiryBeyondLeeway_isExpired() {
        #expect(throws: JWTError.expired) { try signer.verify(signer.sign(claims()), now: 1_000_900 + 31) }
    }

    @Test func token_withAlgNone_isRejected() {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = signer.sign(claims()).split(separator: ".")[1]
        #expect(throws: JWTError.unsupportedAlgorithm) { try signer.verify("\(header).\(payload).", now: 1_000_100) }
    }

    @Test func token_withTamperedPayload_failsSignature() {
        let parts = signer.sign(claims()).split(separator: ".").map(String.init)
        let forged = AccessTokenClaims(sub: "00000000-0000-0000-0000-000000000001", iat: 1_000_000, exp: 9_999_999, sid: "s1")
        let payload = Base64URL.encode(try! JSONEncoder().encode(forged))
        #expect(throws: JWTError.badSignature) { try signer.verify("\(parts[0]).\(payload).\(parts[2])", now: 1_000_100) }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!!.e30.x", "e30.e30.%%%"])
    func malformedToken_isRejected(_ token: String) {
        #expect(throws: JWTError.self) { try signer.verify(token, now: 1_000_100) }
    }

    @Test func base64URL_roundTripsEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        #expect(Base64URL.decode("a+b/") == nil)
    }
}
