import API
import Foundation
import Operations
import Testing

/// The console's latency leaves out long-polls that parked (their duration is the client's
/// wait, not the server's work) and counts them apart; the request goes through the real
/// middleware of a running server.
@Suite struct ParkedRequestMetricsTests {
    @Test func aLongPollThatWaitedIsCountedApartFromLatency() throws {
        nonisolated(unsafe) var metrics: RequestMetrics?
        let app = try AuthTestServer(configureApplication: { metrics = $0.metrics })
        let counters = try #require(metrics)
        let login = try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password])
        let token = try #require(login.json?["access_token"] as? String)
        var since: String?
        for _ in 0..<50 {
            let page = try app.request("GET", "/v1/sync?limit=500" + (since.map { "&since=\($0)" } ?? ""), token: token)
            since = try #require(page.json?["next_since"] as? String)
            if page.json?["has_more"] as? Bool != true { break }
        }
        let before = counters.totals
        let parked = try app.request("GET", "/v1/sync?wait=1&since=\(try #require(since))", token: token)
        #expect(parked.status == 200)
        let after = counters.totals
        #expect(after.parked - before.parked == 1, "the long-poll that waited")
        #expect(after.requests == before.requests, "and it is not in the latency histogram")
    }
}
