@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Foundation
import HTTP1
import HTTPServer
import Testing

/// `GET /metrics` over a real socket: valid exposition format, counters that move with traffic.
@Suite struct MetricsTests {
    /// `name{labels} value` or `name value`; label values may contain escaped quotes.
    static let samplePattern = #"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|\+Inf|-Inf|NaN)$"#

    static func sampleValue(_ text: String, _ prefix: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func metricsAfterRequestsCountsThemByRoutePatternInValidFormat() throws {
        let app = try AuthTestServer()
        _ = try app.client.get("/healthz")
        _ = try app.client.get("/healthz")
        _ = try app.client.get("/v1/users/\(UUID().uuidString)")
        _ = try app.client.get("/no/such/path")
        let response = try app.client.get("/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == PrometheusText.contentType)
        let text = String(decoding: response.body, as: UTF8.self)
        let regex = try NSRegularExpression(pattern: Self.samplePattern)
        for line in text.split(separator: "\n") where !line.hasPrefix("# HELP ") && !line.hasPrefix("# TYPE ") {
            let string = String(line)
            #expect(regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil, "\(line)")
        }
        #expect(Self.sampleValue(text, #"http_requests_total{route="/healthz",method="GET",status="200"}"#) == 2)
        #expect(Self.sampleValue(text, #"http_requests_total{route="/v1/users/{id}",method="GET",status="401"}"#) == 1)
        #expect(Self.sampleValue(text, #"http_requests_total{route="unmatched",method="GET",status="404"}"#) == 1)
        #expect(Self.sampleValue(text, #"http_request_duration_seconds_count{route="/healthz",method="GET"}"#) == 2)
        #expect(Self.sampleValue(text, #"http_request_duration_seconds_bucket{route="/healthz",method="GET",le="+Inf"}"#) == 2)
        #expect(Self.sampleValue(text, #"db_pool_connections{state="in_use"}"#) != nil)
        #expect(text.contains("# TYPE http_request_duration_seconds histogram"))
        // Seeding the admin ran statements on this pool, so the database histogram has samples.
        let statements = try #require(Self.sampleValue(text, "db_query_duration_seconds_count"))
        #expect(statements > 0)
        #expect(Self.sampleValue(text, #"db_query_duration_seconds_bucket{le="+Inf"}"#) == statements)
        #expect(text.contains("# TYPE db_query_duration_seconds histogram"))
    }

    @Test func metricsAfterFailedLoginCountsTheFailure() throws {
        let app = try AuthTestServer()
        let before = Self.sampleValue(String(decoding: try app.client.get("/metrics").body, as: UTF8.self), "auth_login_failures_total")
        let login = try app.request("POST", "/v1/auth/login", json: ["email": "nobody@example.com", "password": "wrong-password"])
        #expect(login.status == 401)
        let after = Self.sampleValue(String(decoding: try app.client.get("/metrics").body, as: UTF8.self), "auth_login_failures_total")
        #expect(before == 0)
        #expect(after == 1)
    }

    @Test func openConnectionsGaugeCountsTheScrapingConnection() throws {
        let application = APIApplication(readiness: DeploymentFilesTests.AlwaysReady())
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, workerCount: 2),
                                responder: application.makeRouter(), middleware: application.middleware)
        application.metrics.setServerMetricsSource { server.metrics }
        try server.start()
        defer {
            server.shutdown(deadline: .seconds(2))
            server.waitUntilStopped()
        }
        let text = String(decoding: try TestHTTPClient(port: server.boundPort).get("/metrics").body, as: UTF8.self)
        #expect(text.contains("# TYPE http_open_connections gauge"))
        #expect((Self.sampleValue(text, "http_open_connections") ?? 0) >= 1)
        #expect(Self.sampleValue(text, "http_rejected_connections_total") == 0)
        for family in ["websocket_open_connections", "websocket_send_queue_bytes", "websocket_send_queue_peak_bytes"] {
            #expect(text.contains("# TYPE \(family) gauge") && Self.sampleValue(text, family) == 0, "\(family)")
        }
        #expect(text.contains("# TYPE websocket_send_queue_overflows_total counter"))
        #expect(Self.sampleValue(text, "websocket_send_queue_overflows_total") == 0)
    }

    @Test(arguments: [("plain", "plain"), ("a\"b", "a\\\"b"), ("back\\slash", "back\\\\slash"), ("line\nbreak", "line\\nbreak")])
    func labelValueEscapesQuotesBackslashesAndNewlines(raw: String, escaped: String) {
        var output = PrometheusText()
        output.sample("m", [("l", raw)], 1)
        #expect(output.text == "m{l=\"\(escaped)\"} 1\n")
    }
}
