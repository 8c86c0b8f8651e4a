import Testing
@testable import Credentials

/// Cheap parameters keep the suite fast; one test exercises the production setting.
private let fast = PasswordHasher(parameters: .init(memoryKiB: 64, iterations: 1, lanes: 1))

@Suite struct PasswordHasherTests {
    @Test func hashWithRecommendedParametersVerifiesAndEncodesThem() throws {
        let hasher = PasswordHasher()
        let encoded = try hasher.hash("correct horse battery staple")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
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

    /// The reference implementation's own test vector (phc-winner-argon2 test.c, Argon2id
    /// v=0x13), raw and as the PHC string its `argon2id_hash_encoded` writes: our encoding is
    /// the one other tools read back.
    @Test func argon2idReferenceVectorMatchesRawAndEncoded() throws {
        let parameters = Argon2id.Parameters(memoryKiB: 65_536, iterations: 2, lanes: 1)
        let derived = try Argon2id.derive(password: "password", salt: Array("somesalt".utf8), parameters: parameters, length: 32)
        #expect(Hex.encode(derived) == "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7")
        let reference = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
        #expect(Argon2id.encode(parameters: parameters, salt: Array("somesalt".utf8), hash: derived) == reference)
        #expect(fast.verify("password", against: reference))
        #expect(!fast.verify("passwore", against: reference))
    }

    @Test func scryptKnownVectorFromRFC7914Matches() throws {
        // RFC 7914 section 12, second vector: P="password", S="NaCl", N=1024, r=8, p=16.
        let expectedHex = "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
            + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        let derived = try Scrypt.derive(
            password: "password", salt: Array("NaCl".utf8), parameters: .init(logN: 10, r: 8, p: 16), length: 64
        )
        #expect(Hex.encode(derived) == expectedHex)
    }

    /// A hash stored before Argon2id (Python's hashlib.scrypt, N=2^10, r=8, p=1) still
    /// verifies, and is due for a rehash.
    @Test func scryptHashFromBeforeArgon2idVerifiesAndNeedsRehash() {
        let old = "$scrypt$ln=10,r=8,p=1$ZGlzcGF0Y2gtZTJlLXNsdA$W9MSvamvjl2dENxsSKFhW35Ry8hUcQzCWC0BAuPSXzg"
        #expect(PasswordHasher().verify("correct horse battery", against: old))
        #expect(!PasswordHasher().verify("correct horse batterY", against: old))
        #expect(PasswordHasher().needsRehash(old))
    }

    @Test(arguments: [
        "", "plain", "$scrypt$", "$argon2id$", "$bcrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1$!!!!$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=40,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA",
        // Argon2id: another version, no version, a planted 4 GiB / 1,000-pass / 0-lane cost,
        // a signed or duplicated or unknown parameter, a salt or hash too short, Argon2i.
        "$argon2id$v=16$m=64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$m=64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=4194304,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=64,t=1000,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=64,t=1,p=0$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=+64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=64,t=1,p=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=64,t=1,p=1,k=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=64,t=1,p=1$AAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$argon2id$v=19$m=64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA",
        "$argon2i$v=19$m=64,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ])
    func verifyMalformedOrUnboundedHashNeverMatchesAndNeedsRehash(encoded: String) {
        #expect(!fast.verify("", against: encoded))
        #expect(fast.needsRehash(encoded))
    }

    @Test func needsRehashWithOtherArgon2idParametersIsTrue() throws {
        let old = try fast.hash("secret")
        #expect(PasswordHasher().needsRehash(old))
        #expect(PasswordHasher().verify("secret", against: old))
    }
}
