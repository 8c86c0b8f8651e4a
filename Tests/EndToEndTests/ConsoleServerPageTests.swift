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
import Store
import Testing

/// The Server page: database, migrations, the charts, and server errors caught by the ring.
@Suite struct ConsoleServerPageTests {
    struct Boom: Error {}

    @Test func serverPageShowsHealthChartsAndRecentErrors() throws {
        let app = try AuthTestServer(withConsole: true, adjustRouter: { router in
            router.get("/v1/boom") { _, _ in throw Boom() }
        })
        #expect(try app.request("GET", "/v1/boom").status == 500)
        try #require(app.heartbeat).beat()
        let browser = ConsoleSession(app)
        try browser.signIn()
        let page = try browser.get("/console/server")
        #expect(page.status == 200)
        let html = ConsoleSession.text(page)
        #expect(html.contains("reachable") && html.contains("0022") && html.contains("up to date"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == 5)
        #expect(html.contains("GET /v1/boom"), "the 500 is listed by its route")
        #expect(!html.contains("No server errors since this process started."))
    }

    /// Every instance sharing the database is listed; one whose heartbeat is older than three
    /// intervals is marked stale; the charts are of the chosen instance or of all together.
    @Test func serverPageListsEveryInstanceMarksTheSilentOneStaleAndChartsTheChosenOne() throws {
        let app = try AuthTestServer(withConsole: true)
        let heartbeat = try #require(app.heartbeat)
        try heartbeat.beat()
        let other = InstanceHeartbeat(version: "0.9.0", address: "other-host:9090", interval: .seconds(15), pool: app.database.pool,
                                      metrics: RequestMetrics(), logger: InstanceHeartbeatTests.quiet)
        try other.beat()
        let browser = ConsoleSession(app)
        try browser.signIn()
        var html = ConsoleSession.text(try browser.get("/console/server"))
        #expect(html.contains("other-host:9090") && html.contains("127.0.0.1:test"))
        #expect(html.contains("mixed versions"))
        #expect(!html.contains(">stale</span>"), "both beat just now")
        try app.database.pool.execute("UPDATE server_instances SET last_seen = now() - interval '46 seconds' WHERE id = \(other.id)")
        html = ConsoleSession.text(try browser.get("/console/server"))
        let otherRow = try #require(html.components(separatedBy: "data-instance=\"\(other.id.uuidString.lowercased())\"").dropFirst().first)
        #expect(otherRow.components(separatedBy: "</tr>").first?.contains(">stale</span>") == true)
        #expect(!html.contains("mixed versions"), "a stale instance's version is not running")
        let chosen = ConsoleSession.text(try browser.get("/console/server?instance=\(other.id.uuidString.lowercased())"))
        #expect(chosen.contains("Charts of other-host:9090 (0.9.0)"))
        let unknown = try browser.get("/console/server?instance=not-an-id")
        #expect(unknown.status == 422, "a malformed choice is refused, not shown as a database failure")
        let forgotten = ConsoleSession.text(try browser.get("/console/server?instance=\(UUID().uuidString)"))
        #expect(forgotten.contains("no longer recorded") && forgotten.contains("Charts of all instances together"))
    }

    /// The charts have labelled axes: UTC clock times below, values with their unit at the left.
    @Test func chartsHaveATimeAxisAndAValueAxisWithUnits() throws {
        let start = Date(timeIntervalSince1970: 36_000)  // 10:00 UTC
        let svg = SVGChart.svg([SVGChart.Point(at: start.addingTimeInterval(1800), value: 0.3)], start: start,
                               end: start.addingTimeInterval(3600), step: 60, label: "p95", unit: ConsoleServerCharts.latency)
        let xLabels = svg.components(separatedBy: #"class="axis axis-x""#).dropFirst().compactMap { $0.split(separator: ">").dropFirst().first?.split(separator: "<").first }
        #expect(xLabels.map(String.init) == ["10:00", "10:15", "10:30", "10:45", "11:00"])
        #expect(svg.contains(">500 ms</text>") && svg.contains(">0 ms</text>"), "the top rounds 300 ms up to 500 ms")
        #expect(svg.contains("<circle"), "a single minute is a dot, not a line to nowhere")
    }

    /// p95 is the bound of the first bucket holding 95 % of the minute's requests.
    @Test func p95ComesFromTheMinutesBuckets() {
        let bounds = RequestMetrics.durationBuckets
        // 100 requests: 90 under 5 ms, 8 more under 0.25 s, 2 under 1 s.
        let buckets = bounds.map { bound in bound <= 0.1 ? 90 : bound <= 0.5 ? 98 : 100 }
        let sample = InstanceSample(minute: Date(), requests: 100, latencyBuckets: buckets)
        #expect(ConsoleServerCharts.p95(sample) == 0.25)
        #expect(ConsoleServerCharts.p95(InstanceSample(minute: Date())) == nil, "no requests, no percentile")
    }
}
