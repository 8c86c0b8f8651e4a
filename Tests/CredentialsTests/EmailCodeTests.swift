import Testing
@testable import Credentials

/// The primitives of the e-mail sign-in and recovery flows: codes, HMAC, PKCE.
@Suite struct EmailCodeTests {
    @Test func codesAreSixDigitsAndSpreadOverTheWholeRange() throws {
        var leadingDigits = Set<Character>()
        for _ in 0..<2000 {
            let code = try OneTimeCode.make()
            #expect(OneTimeCode.isWellFormed(code), "\(code)")
            leadingDigits.insert(code.first ?? "x")
        }
        // Ten leading digits, zero included: not 0...99_999 dropped, not a narrower range.
        #expect(leadingDigits == Set("0123456789"))
        #expect(!OneTimeCode.isWellFormed("12345") && !OneTimeCode.isWellFormed("1234567") && !OneTimeCode.isWellFormed("12a456"))
    }

    /// RFC 4231 test case 2.
    @Test func hmacMatchesTheRFCVector() {
        let mac = HMACSHA256.mac(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// The challenge computed independently: Python's
    /// `base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")`.
    @Test func pkceS256MatchesAnIndependentVectorAndRefusesOthers() {
        let verifier = "dBjftJeZ4CVP-mJ92K1puaabLhYvWhDpCSgXptA6FqE"
        let challenge = "scfg6znOTtZpJpXQ0BdRRK4nOOQNwV66oW8_IUgO7Uw"
        #expect(PKCE.verifies(verifier, challenge: challenge, method: .s256))
        #expect(!PKCE.verifies(verifier + "x", challenge: challenge, method: .s256))
        #expect(!PKCE.verifies(verifier, challenge: challenge, method: .plain))
        #expect(PKCE.verifies(verifier, challenge: verifier, method: .plain))
        #expect(!PKCE.isWellFormed("short") && !PKCE.isWellFormed(String(repeating: "a", count: 129)))
    }
}
