import API
import Foundation
import HTTP1
import HTTPServer
import Postgres
import RouteKit

/// `/console/server`: is this server healthy? Version, uptime, database reachability and
/// round trip, pool use, applied migrations, charts of the last minutes' request rate, p95
/// latency, parked sync long-polls and pool waiters, and the most recent server errors.
enum ConsoleServerRoutes {
    static func register(on router: inout Router, site: ConsoleSite, facts: ConsoleServerFacts) {
        router.get("/console/server") { request, context in
            try site.page(request, context) { _ in
                ConsolePage(title: "Server", section: "/console/server", template: "server", data: data(facts, context))
            }
        }
    }

    static func data(_ facts: ConsoleServerFacts, _ context: RequestContext) -> [String: Any] {
        var data: [String: Any] = [
            "version": facts.version, "startedAt": ConsoleFormat.time(facts.startedAt),
            "uptime": ConsoleFormat.duration(Date().timeIntervalSince(facts.startedAt)),
        ]
        let stats = facts.pool.stats
        data["pool"] = ["size": facts.pool.configuration.size, "open": stats.open, "inUse": stats.inUse,
                        "idle": stats.idle, "waiting": stats.waiting]
        let started = Date()
        do {
            _ = try facts.pool.query("SELECT 1 AS one")
            data["database"] = ["reachable": true, "roundTrip": ConsoleFormat.milliseconds(Date().timeIntervalSince(started))]
            if let migrator = facts.migrator {
                let status = try migrator.status(pool: facts.pool)
                data["migrations"] = status.applied.reversed().map {
                    ["version": String(format: "%04d", $0.version), "name": $0.name, "appliedAt": ConsoleFormat.time($0.appliedAt)]
                }
                data["pending"] = status.pending.map { String(format: "%04d %@", $0.version, $0.name) }
                data["upToDate"] = status.isUpToDate
            }
        } catch {
            // Logged in full; the page says what the API would answer.
            data["database"] = ["reachable": false, "problem": APIErrorRenderer.statusAndMessage(for: error, logger: context.logger).message]
        }
        data["charts"] = charts(facts.sampler.points())
        let errors = facts.errors.recent
        data["hasErrors"] = !errors.isEmpty
        data["errors"] = errors.map {
            ["at": ConsoleFormat.time($0.at), "method": $0.method, "route": $0.route, "status": $0.status, "requestID": $0.requestID]
        }
        return data
    }

    static func charts(_ points: [MetricsSampler.Point]) -> [[String: Any]] {
        let last = points.last
        return [
            chart("Requests per second", points.map { $0.requestsPerSecond },
                  now: last.map { String(format: "%.1f", $0.requestsPerSecond) }),
            chart("p95 latency (at most)", points.map { $0.p95 }, now: last?.p95.map(ConsoleFormat.milliseconds) ?? "no requests"),
            chart("Sync long-polls waiting", points.map { Double($0.syncWaiters) }, now: last.map { String($0.syncWaiters) }),
            chart("Requests waiting for a database connection", points.map { Double($0.poolWaiting) },
                  now: last.map { String($0.poolWaiting) }),
        ]
    }

    static func chart(_ label: String, _ values: [Double?], now: String?) -> [String: Any] {
        ["label": label, "now": now ?? "—", "svg": SVGChart.svg(values, label: label)]
    }
}
