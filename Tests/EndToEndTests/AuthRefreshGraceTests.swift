import Foundation
import Store
import Synchronization
import Testing

/// A phone retrying a refresh (or sending two at once) stays signed in; a replay
/// after the grace window is still treated as theft.
@Suite struct AuthRefreshGraceTests {
    struct Pair: Sendable {
        var status: Int
        var access: String?
        var refresh: String?
    }

    static func refresh(_ app: AuthTestServer, _ token: String) throws -> Pair {
        try refresh(app.client, token)
    }

    static func refresh(_ client: TestHTTPClient, _ token: String) throws -> Pair {
        let body = Array(try JSONSerialization.data(withJSONObject: ["refresh_token": token]))
        let response = try client.perform(method: "POST", path: "/v1/auth/refresh",
                                          headers: ["Content-Type": "application/json"], body: body)
        return Pair(status: response.status, access: response.json?["access_token"] as? String,
                    refresh: response.json?["refresh_token"] as? String)
    }

    @Test func concurrentDoubleRefreshBothSucceedAndSessionStaysUsable() throws {
        let app = try AuthTestServer()
        var token = try app.login().refresh
        // Several rounds, each two refreshes of one token released together.
        for _ in 0..<5 {
            let results = Mutex<[Pair]>([])
            let presented = token
            let client = app.client
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                let pair = (try? Self.refresh(client, presented)) ?? Pair(status: -1)
                results.withLock { $0.append(pair) }
            }
            let pairs = results.withLock { $0 }
            #expect(pairs.map(\.status) == [200, 200])
            // Both got the session's one current token; its access tokens work.
            #expect(pairs[0].refresh != nil && pairs[0].refresh == pairs[1].refresh)
            for pair in pairs {
                let access = try #require(pair.access)
                #expect(try app.request("GET", "/v1/me", token: access).status == 200)
            }
            token = try #require(pairs[0].refresh)
        }
        #expect(try Self.refresh(app, token).status == 200)
        let live = try app.database.pool.query("SELECT count(*)::int AS n FROM auth_sessions WHERE revoked_at IS NULL")
        #expect(try live.first?.decode("n", as: Int.self) == 1)
    }

    @Test func replayWithinWindowAnswersTheCurrentPair() throws {
        let app = try AuthTestServer()
        let first = try app.login().refresh
        let second = try #require(try Self.refresh(app, first).refresh)

        let replay = try Self.refresh(app, first)
        #expect(replay.status == 200)
        #expect(replay.refresh == second)
        let access = try #require(replay.access)
        #expect(try app.request("GET", "/v1/me", token: access).status == 200)

        // The client moved on (second → third); a late retry of the first still lands on the
        // current token, by opening the sealed successors forward.
        let third = try #require(try Self.refresh(app, second).refresh)
        let lateReplay = try Self.refresh(app, first)
        #expect(lateReplay.status == 200)
        #expect(lateReplay.refresh == third)
        #expect(try Self.refresh(app, third).status == 200)
    }

    @Test func replayAfterWindowRevokesTheSession() throws {
        let app = try AuthTestServer(refreshReuseGrace: .milliseconds(300))
        let login = try app.login()
        let rotated = try Self.refresh(app, login.refresh)
        let current = try #require(rotated.refresh)
        Thread.sleep(forTimeInterval: 0.6)

        let reused = try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": login.refresh])
        #expect(reused.status == 401)
        #expect(reused.json?["code"] as? String == "invalid_refresh_token")
        #expect(try Self.refresh(app, current).status == 401)
        let access = try #require(rotated.access)
        let me = try app.request("GET", "/v1/me", token: access)
        #expect(me.status == 401)
        #expect(me.json?["code"] as? String == "session_revoked")
        let reason = try app.database.pool.query("SELECT revoked_reason FROM auth_sessions")
        #expect(try reason.first?.decode("revoked_reason", as: String?.self) == "reuse_detected")
    }
}
