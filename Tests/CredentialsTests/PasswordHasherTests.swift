import Testing
@testable import Credentials

/// Cheap parameters keep the suite fast; one test exercises the production setting.
private let fast = PasswordHasher(parameters: .init(logN: 10, r: 8, p: 1))

@Suite struct PasswordHasherTests {
    @Test func hashWithRecommendedParametersVerifiesAndEncodesThem() throws {
        let hasher = PasswordHasher()
        let encoded = try hasher.hash("correct horse battery staple")
        #expect(encoded.hasPrefix("$scrypt$ln=15,r=8,p=3$"))
        #expect(hasher.verify("correct horse battery staple", against: encoded))
        #expect(!hasher.verify("correct horse battery stapl", against: encoded))
        #expect(!hasher.needsRehash(encoded))
    }

    @Test(arguments: ["", "pässwörd ✓", String(repeating: "long", count: 64)])
    func verifyWithSamePasswordSucceedsAndWithOtherFails(password: String) throws {
        let encoded = try fast.hash(password)
        #expect(fast.verify(password, against: encoded))
        #expect(!fast.verify(password + "!", against: encoded))
    }

    @Test func hashSamePasswordTwiceUsesDifferentSalts() throws {
        #expect(try fast.hash("secret") != fast.hash("secret"))
    }

    @Test func verifyKnownVectorFromRFC7914Matches() throws {
        // RFC 7914 section 12, second vector: P="password", S="NaCl", N=1024, r=8, p=16.
        let expectedHex = "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
            + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        let derived = try PasswordHasher.derive(
            password: "password", salt: Array("NaCl".utf8), parameters: .init(logN: 10, r: 8, p: 16), length: 64
        )
        #expect(Hex.encode(derived) == expectedHex)
    }

    @Test(arguments: [
        "", "plain", "$scrypt$", "$bcrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1$!!!!$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=40,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA",
    ])
    func verifyMalformedOrUnboundedHashNeverMatchesAndNeedsRehash(encoded: String) {
        #expect(!fast.verify("", against: encoded))
        #expect(fast.needsRehash(encoded))
    }

    @Test func needsRehashWithOlderParametersIsTrue() throws {
        let old = try fast.hash("secret")
        #expect(PasswordHasher().needsRehash(old))
        #expect(PasswordHasher().verify("secret", against: old))
    }
}
