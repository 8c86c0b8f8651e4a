import Testing
@testable import Credentials

@Suite struct TokenSealerTests {
    @Test func sealedTokenOpensOnlyUnderItsPredecessor() throws {
        let predecessor = try SecureRandom.token()
        let successor = try SecureRandom.token()
        let sealed = try TokenSealer.seal(successor, under: predecessor)
        #expect(TokenSealer.open(sealed, under: predecessor) == successor)
        #expect(TokenSealer.open(sealed, under: try SecureRandom.token()) == nil)
        // The key is not the stored SHA-256 of the predecessor, so the database cannot open it.
        #expect(TokenSealer.open(sealed, under: SHA256.hex(predecessor)) == nil)
        #expect(!sealed.contains(Array(successor.utf8)))
    }

    @Test func tamperedOrTruncatedSealsDoNotOpen() throws {
        let predecessor = try SecureRandom.token()
        var sealed = try TokenSealer.seal(try SecureRandom.token(), under: predecessor)
        sealed[20] ^= 1
        #expect(TokenSealer.open(sealed, under: predecessor) == nil)
        #expect(TokenSealer.open(Array(sealed.prefix(20)), under: predecessor) == nil)
        #expect(TokenSealer.open([], under: predecessor) == nil)
    }

    @Test func twoSealsOfOneTokenDiffer() throws {
        let predecessor = try SecureRandom.token()
        let token = try SecureRandom.token()
        #expect(try TokenSealer.seal(token, under: predecessor) != (try TokenSealer.seal(token, under: predecessor)))
    }
}
