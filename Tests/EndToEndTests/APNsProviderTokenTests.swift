import Credentials
import Foundation
import Push
import Synchronization
import Testing

/// The APNs provider token's lifetime, on a clock the test moves: reused inside its lifetime
/// (Apple refuses refreshes more often than every 20 minutes), renewed after it (tokens over an
/// hour old are refused), and renewed only once for one `ExpiredProviderToken`.
@Suite struct APNsProviderTokenTests {
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static func key() throws -> JWSSigningKey {
        let directory = NSTemporaryDirectory() + "apns-key-\(UUID().uuidString)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", directory]
        try process.run()
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try JWSSigningKey(pem: String(contentsOfFile: directory, encoding: .utf8))
    }

    @Test func oneTokenServesItsLifetimeAndAnExpiryRenewsItOnce() throws {
        let clock = Clock()
        let tokens = APNsProviderToken(key: try Self.key(), keyID: "K", teamID: "T", lifetime: .seconds(50 * 60),
                                       now: { clock.now.withLock { $0 } })
        let first = try tokens.token()
        clock.advance(49 * 60)
        #expect(try tokens.token() == first && tokens.signed == 1)
        clock.advance(2 * 60)
        let second = try tokens.token()
        #expect(second != first && tokens.signed == 2)
        // Two pushes refused with the same stale token: one new token, not two.
        let renewed = try tokens.renew(rejected: second)
        #expect(try tokens.renew(rejected: second) == renewed && tokens.signed == 3)
        // A lifetime outside Apple's 20…60 minutes is clamped.
        let short = APNsProviderToken(key: try Self.key(), keyID: "K", teamID: "T", lifetime: .seconds(60), now: { clock.now.withLock { $0 } })
        let kept = try short.token()
        clock.advance(19 * 60)
        #expect(try short.token() == kept)
    }

    @Test func aSignatureIsTheRawSixtyFourBytesAndAnRSAOrBrokenKeyIsTold() throws {
        let key = try Self.key()
        #expect(key.algorithm == .es256)
        #expect(try key.sign(Array("message".utf8)).count == 64)
        #expect(throws: CredentialsError.signingKeyInvalid) { try JWSSigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
    }
}
