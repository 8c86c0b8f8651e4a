@testable import API
import Foundation
import Logging
import Mail
import Postgres
@testable import Slack
import TestSupport

/// The application with Slack wired as `serve` wires it, a fake Slack (`SlackFake`) as the
/// incoming webhook and response_url target (SLACK_HOOKS_BASE_URL points at it), the
/// integration stored through the admin API, and a realtor.
final class SlackWorld {
    static let secret = "8f742231b10e8888abcd99yyyzzz85a5"
    static let team = "T1DC2JH3J"
    static let slackUser = "U2CERLKJA"

    let fake: SlackFake
    let app: AuthTestServer
    let slack: SlackService
    let adminToken: String
    let realtorID: String
    let realtorToken: String

    init(answers: [String] = [], events: [String] = ["task.created"], pace: Duration = .seconds(1)) throws {
        let fake = try SlackFake(answers: answers)
        self.fake = fake
        var settings = SlackSettings(hooksBaseURL: fake.base)
        settings.pollInterval = .milliseconds(100)
        settings.initialRetry = .milliseconds(300)
        settings.pace = pace
        var made: SlackService?
        app = try AuthTestServer(configureApplication: { application in
            guard let pool = application.pool else { return }
            let service = SlackService(pool: pool, serverSecret: String(repeating: "k", count: 32),
                                       links: PublicLinks(baseURL: "https://dispatch.example", redirectURLs: nil), settings: settings,
                                       logger: Logger(label: "slack-e2e", factory: { _ in SwiftLogNoOpLogHandler() }))
            application.slack = service
            made = service
        })
        guard let made else { throw TestSupportError("no Slack service") }
        slack = made
        adminToken = try app.login().access
        realtorID = try app.createRealtor("rita@example.com", adminToken: adminToken)
        realtorToken = try app.login("rita@example.com").access
        let stored = try app.request("POST", "/v1/integrations/slack", token: adminToken, json: [
            "team_id": Self.team, "signing_secret": Self.secret, "incoming_webhook_url": webhookURL, "events": events,
        ])
        guard stored.status == 200 else { throw TestSupportError("storing the integration: \(stored.status) \(String(decoding: stored.body, as: UTF8.self))") }
        slack.start()
    }

    deinit {
        slack.stop()
    }

    var webhookURL: String { fake.base + "services/T1DC2JH3J/B00000000/secretpart123" }

    func linkRealtor() throws {
        let linked = try app.request("PUT", "/v1/integrations/slack/users/\(realtorID)", token: adminToken, json: ["slack_user_id": Self.slackUser])
        guard linked.status == 200 else { throw TestSupportError("link: \(linked.status)") }
    }

    /// A slash command's form body, as Slack's docs show it.
    func commandBody(text: String, user: String = SlackWorld.slackUser, trigger: String = "398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c") -> String {
        [("token", "xyzz0WbapA4vBCDEFasx0q6G"), ("team_id", Self.team), ("team_domain", "testteamnow"), ("channel_id", "G8PSS9T3V"),
         ("channel_name", "foobar"), ("user_id", user), ("user_name", "roadrunner"), ("command", "/dispatch"), ("text", text),
         ("response_url", fake.base + "commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN"), ("trigger_id", trigger)]
            .map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    /// POSTs `body` signed by slack_sdk with `secret` at `timestamp` (default: now).
    func send(_ path: String, body: String, contentType: String = "application/x-www-form-urlencoded",
              secret: String = SlackWorld.secret, timestamp: Int? = nil, extra: [String: String] = [:]) throws -> TestHTTPClient.Response {
        let stamp = timestamp ?? Int(Date().timeIntervalSince1970)
        var headers = ["Content-Type": contentType, "X-Slack-Request-Timestamp": String(stamp),
                       "X-Slack-Signature": try SlackFake.sign(body, secret: secret, timestamp: stamp)]
        headers.merge(extra) { $1 }
        return try app.request("POST", path, body: Array(body.utf8), headers: headers)
    }

    func count(_ sql: String) throws -> Int {
        guard let row = try app.database.pool.query(PostgresQuery(sql: sql)).first else { return -1 }
        return Int(try row.decode(0, as: Int64.self))
    }

    /// Polls `condition` (at most `timeout`): state, not elapsed time, decides.
    func eventually(_ timeout: Duration = .seconds(20), _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }
}
