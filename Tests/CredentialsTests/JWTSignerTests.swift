import Credentials
import Foundation
import Testing

@Suite struct JWTSignerTests {
    let signer = JWTSigner(secret: String(repeating: "s", count: 32))
    let claims = AccessTokenClaims(sub: "u", iat: 1_000, exp: 2_000, sid: "s")

    @Test func signedTokenVerifiesBeforeExpiry() throws {
        let token = try signer.sign(claims)
        #expect(token.split(separator: ".").count == 3)
        #expect(try signer.verify(token, now: Date(timeIntervalSince1970: 1_999)) == claims)
    }

    @Test func tokenAtOrAfterExpiryIsRejectedAsExpired() throws {
        let token = try signer.sign(claims)
        #expect(throws: CredentialsError.tokenExpired) { try signer.verify(token, now: Date(timeIntervalSince1970: 2_000)) }
    }

    @Test func tokenFromAnotherSecretIsRejected() throws {
        let token = try JWTSigner(secret: String(repeating: "t", count: 32)).sign(claims)
        #expect(throws: CredentialsError.tokenSignatureInvalid) { try signer.verify(token, now: Date(timeIntervalSince1970: 1_500)) }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!.!!.!!"])
    func malformedTokenIsRejected(token: String) {
        #expect(throws: CredentialsError.tokenMalformed) { try signer.verify(token) }
    }

    @Test func unsignedAlgNoneTokenIsRejected() throws {
        let parts = try signer.sign(claims).split(separator: ".")
        let none = Data(#"{"alg":"none"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        #expect(throws: CredentialsError.tokenAlgorithmUnsupported) {
            try signer.verify("\(none).\(parts[1]).", now: Date(timeIntervalSince1970: 1_500))
        }
    }
}
