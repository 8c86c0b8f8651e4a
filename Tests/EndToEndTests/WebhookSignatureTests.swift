import Foundation
import Testing
@testable import Webhooks

/// The Standard Webhooks signing test vector (standard-webhooks `libraries/python/tests`) and
/// the rules around it, as unit tests.
@Suite struct WebhookSignatureTests {
    @Test func theStandardWebhooksVectorSignsAsPublished() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let header = WebhookSignature.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                             body: Array(#"{"test": 2432232314}"#.utf8), secrets: [secret])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func twoSecretsGiveTwoSignaturesNewestFirst() throws {
        let old = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let new = try WebhookSecret.generate()
        let header = WebhookSignature.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                             body: Array(#"{"test": 2432232314}"#.utf8), secrets: [new, old])
        let parts = header.split(separator: " ")
        #expect(parts.count == 2 && parts[1] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" && parts[0] != parts[1])
    }

    @Test func generatedSecretsAreUniqueThirtyTwoBytesAndSealedNotStoredInClear() throws {
        let first = try WebhookSecret.generate(), second = try WebhookSecret.generate()
        #expect(first != second && first.key.count == 32 && first.text.hasPrefix("whsec_"))
        let seal = WebhookService.secretSeal(serverSecret: String(repeating: "s", count: 32))
        let sealed = try seal.seal(first.text)
        #expect(!sealed.contains(first.text) && !sealed.contains(String(first.text.dropFirst(6))))
        #expect(seal.open(sealed) == first.text)
        #expect(WebhookService.secretSeal(serverSecret: String(repeating: "t", count: 32)).open(sealed) == nil)
        #expect(WebhookSecret("whsec_") == nil && WebhookSecret("sk_abc") == nil)
    }

    @Test func theRetryScheduleSpansAboutThreeDaysAndHonoursRetryAfter() {
        let schedule = WebhookRetrySchedule()
        #expect(schedule.maxAttempts == 10)
        let total = WebhookRetrySchedule.standard.reduce(Duration.zero, +)
        #expect(total == .seconds(75 * 3600 + 35 * 60 + 5))
        #expect(schedule.wait(afterAttempt: 10, retryAfter: nil) == nil)
        let first = schedule.wait(afterAttempt: 1, retryAfter: nil) ?? .zero
        #expect(first >= .seconds(4) && first <= .seconds(6))
        #expect(schedule.wait(afterAttempt: 1, retryAfter: .seconds(120)) == .seconds(120))
        #expect(schedule.wait(afterAttempt: 1, retryAfter: .seconds(10 * 86_400)) == .seconds(86_400))
    }

    @Test func theAllowListParsesHostsAndRanges() throws {
        let policy = try WebhookTargetPolicy(parsing: "127.0.0.1, hooks.internal ,10.20.0.0/16")
        #expect(policy.allowedHosts == ["hooks.internal"] && policy.allowedRanges.count == 2)
        #expect(throws: WebhookSettingError.self) { try WebhookTargetPolicy(parsing: "10.0.0.0/99") }
        #expect(throws: WebhookSettingError.self) { try WebhookTargetPolicy(parsing: "http://x") }
    }
}
