import Foundation
@testable import Slack
@testable import Store
import Testing

/// Slack's published signing vector and the pure parts: the window, rotation, answers'
/// meaning, form decoding, Block Kit limits.
@Suite struct SlackUnitTests {
    /// From Slack's "Verifying requests from Slack" page.
    static let vectorSecret = "8f742231b10e8888abcd99yyyzzz85a5"
    static let vectorTimestamp = "1531420618"
    static let vectorBody = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
    static let vectorSignature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
    static let vectorTime = Date(timeIntervalSince1970: 1_531_420_618)

    @Test func slacksPublishedVectorSignsAndVerifies() throws {
        #expect(SlackSignature.sign(secret: Self.vectorSecret, timestamp: Self.vectorTimestamp, body: Array(Self.vectorBody.utf8))
            == Self.vectorSignature)
        try SlackSignature.verify(signature: Self.vectorSignature, timestamp: Self.vectorTimestamp, body: Array(Self.vectorBody.utf8),
                                  secrets: [Self.vectorSecret], now: Self.vectorTime.addingTimeInterval(299))
    }

    @Test func verificationRefusesOutsideFiveMinutesEitherWayAndAlteredBodies() {
        let body = Array(Self.vectorBody.utf8)
        func check(_ now: Date, _ body: [UInt8] = body, secrets: [String] = [SlackUnitTests.vectorSecret], signature: String? = SlackUnitTests.vectorSignature) -> SlackSignature.Failure? {
            do { try SlackSignature.verify(signature: signature, timestamp: Self.vectorTimestamp, body: body, secrets: secrets, now: now) }
            catch { return error }
            return nil
        }
        #expect(check(Self.vectorTime.addingTimeInterval(301)) == .stale)
        #expect(check(Self.vectorTime.addingTimeInterval(-301)) == .stale)
        #expect(check(Self.vectorTime.addingTimeInterval(-300)) == nil)
        #expect(check(Self.vectorTime, body + [0x78]) == .mismatch)
        #expect(check(Self.vectorTime, signature: nil) == .missing)
        #expect(check(Self.vectorTime, signature: Self.vectorSignature.uppercased()) == .mismatch)
        // During a rotation the previous secret still verifies; an unrelated one never does.
        #expect(check(Self.vectorTime, secrets: ["new-secret-0123456789abcdef", Self.vectorSecret]) == nil)
        #expect(check(Self.vectorTime, secrets: ["new-secret-0123456789abcdef"]) == .mismatch)
    }

    @Test func answersPauseKillOrRetryAsSlackDocumentsThem() {
        func verdict(_ status: Int, _ body: String, retryAfter: Int? = nil, post: Bool = true, attempts: Int = 1) -> SlackVerdict {
            SlackVerdict.of(.init(status: status, retryAfter: retryAfter.map { .seconds($0) }, excerpt: body), isPost: post, attempts: attempts, maxAttempts: 10,
                            backoff: .seconds(5))
        }
        #expect(verdict(200, "ok") == .sent)
        #expect(verdict(429, "rate_limited", retryAfter: 7) == .retry(after: .seconds(7), reason: "HTTP 429: rate_limited"))
        #expect(verdict(410, "channel_is_archived") == .pause(reason: "HTTP 410: channel_is_archived"))
        #expect(verdict(404, "no_service") == .pause(reason: "HTTP 404: no_service"))
        #expect(verdict(404, "channel_not_found") == .pause(reason: "HTTP 404: channel_not_found"))
        #expect(verdict(403, "action_prohibited") == .pause(reason: "HTTP 403: action_prohibited"))
        #expect(verdict(410, "expired_url", post: false) == .dead(reason: "HTTP 410: expired_url"))
        #expect(verdict(400, "invalid_payload") == .invalidPayload(reason: "HTTP 400: invalid_payload"))
        #expect(verdict(500, "rollup_error") == .retry(after: .seconds(5), reason: "HTTP 500: rollup_error"))
        #expect(verdict(302, "") == .retry(after: .seconds(5), reason: "HTTP 302"))
        #expect(verdict(500, "rollup_error", attempts: 10) == .dead(reason: "HTTP 500: rollup_error (after 10 attempts)"))
    }

    @Test func formDecodingFollowsTheEncodingAndRefusesBrokenEscapes() {
        #expect(SlackForm.parse(Array("text=Order+photos%20for%2012%20Elm&user_id=U1&empty=".utf8))
            == ["text": "Order photos for 12 Elm", "user_id": "U1", "empty": ""])
        #expect(SlackForm.parse(Array("text=%E2%9C%93".utf8)) == ["text": "✓"])
        #expect(SlackForm.parse(Array("text=%G1".utf8)) == nil)
        #expect(SlackForm.parse(Array("text=%4".utf8)) == nil)
        #expect(SlackForm.parse(Array("text=%FF".utf8)) == nil)
        #expect(SlackForm.parse(Array("text=%00".utf8)) == nil)
    }

    @Test func blockKitTextIsClampedToSlacksLimitsAndEscaped() throws {
        let title = String(repeating: "x", count: 500)
        let event = SlackEventScan.Event(key: "k", type: "task.created", entityType: "task", entityID: UUID(), title: title, priority: "urgent",
                                         status: "open", dueDate: nil, listing: String(repeating: "<!here> ", count: 400), actor: "Ada",
                                         claimedBy: nil, declaredBy: "Ada", occurredAt: Date())
        let json = try SlackBlocks.encode(SlackBlocks.message(event, link: "https://dispatch.example/console/work/tasks/1"))
        let message = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let blocks = try #require(message["blocks"] as? [[String: Any]])
        let header = try #require((blocks[0]["text"] as? [String: Any])?["text"] as? String)
        #expect(header.count == 150 && header.hasSuffix("…"))
        let fields = try #require(blocks[1]["fields"] as? [[String: Any]]).compactMap { $0["text"] as? String }
        #expect(fields.allSatisfy { $0.count <= 2000 })
        #expect(!fields.contains { $0.contains("<!here>") })
        #expect(((message["text"] as? String)?.count ?? 0) <= 3000)
    }
}
