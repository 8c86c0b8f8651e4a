import Testing
@testable import Credentials

@Suite struct PrimitivesTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ])
    func sha256HexOfKnownInputMatchesFIPSVector(input: String, expected: String) {
        #expect(SHA256.hex(input) == expected)
    }

    @Test func secureRandomBytesHaveRequestedLengthAndDiffer() throws {
        let first = try SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(try SecureRandom.bytes(32) != first)
        #expect(try SecureRandom.bytes(0).isEmpty)
    }

    @Test func secureRandomTokenIsURLSafeAndUnpadded() throws {
        for _ in 0..<50 {
            let token = try SecureRandom.token()
            #expect(token.count == 43)
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    @Test(arguments: [
        ([UInt8](), [UInt8](), true), ([1, 2, 3], [1, 2, 3], true), ([1, 2, 3], [1, 2, 4], false),
        ([1, 2], [1, 2, 3], false),
    ])
    func constantTimeEqualsMatchesOrdinaryEquality(lhs: [UInt8], rhs: [UInt8], expected: Bool) {
        #expect(ConstantTime.equals(lhs, rhs) == expected)
    }
}
