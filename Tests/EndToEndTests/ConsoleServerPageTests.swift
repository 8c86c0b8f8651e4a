@testable import Console
import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import HTTPServer
import Testing

/// The Server page: database, migrations, the charts, and server errors caught by the ring.
@Suite struct ConsoleServerPageTests {
    struct Boom: Error {}

    @Test func serverPageShowsHealthChartsAndRecentErrors() throws {
        let app = try AuthTestServer(withConsole: true, adjustRouter: { router in
            router.get("/v1/boom") { _, _ in throw Boom() }
        })
        #expect(try app.request("GET", "/v1/boom").status == 500)
        let browser = ConsoleSession(app)
        try browser.signIn()
        let page = try browser.get("/console/server")
        #expect(page.status == 200)
        let html = ConsoleSession.text(page)
        #expect(html.contains("reachable") && html.contains("0022") && html.contains("up to date"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == 4)
        #expect(html.contains("GET /v1/boom"), "the 500 is listed by its route")
        #expect(!html.contains("No server errors since this process started."))
    }

    /// p95 is the bound of the first bucket holding 95 % of the interval's requests.
    @Test func p95ComesFromTheIntervalsBucketDeltas() {
        let bounds = RequestMetrics.durationBuckets
        let zero = MetricsSampler.Reading(at: Date(timeIntervalSince1970: 0), requests: 100,
                                          cumulativeBuckets: Array(repeating: 100, count: bounds.count),
                                          syncWaiters: 0, poolWaiting: 0, poolInUse: 0)
        // 100 new requests in 10 s: 90 under 5 ms, 8 more under 0.25 s, 2 under 1 s.
        var later = zero
        later.at = Date(timeIntervalSince1970: 10)
        later.requests = 200
        later.cumulativeBuckets = bounds.map { bound in 100 + (bound <= 0.005 ? 90 : bound <= 0.1 ? 90 : bound <= 0.25 ? 98 : bound <= 0.5 ? 98 : 100) }
        let point = MetricsSampler.point(from: zero, to: later)
        #expect(point.requestsPerSecond == 10)
        #expect(point.p95 == 0.25)
        #expect(MetricsSampler.point(from: zero, to: zero).p95 == nil, "no requests, no percentile")
    }
}
