import API
import Foundation
import HTTP1
import HTTPServer
import Postgres
import RouteKit
import Store

/// `/console/server`: is the server healthy? This instance's version, uptime, database
/// reachability and pool; every instance sharing the database (heartbeats, stale ones marked);
/// charts of the last hour for one chosen instance or the sum over all (`ConsoleServerCharts`);
/// this instance's most recent server errors; the migrations.
enum ConsoleServerRoutes {
    static func register(on router: inout Router, site: ConsoleSite, facts: ConsoleServerFacts) {
        router.get("/console/server") { request, context in
            try site.page(request, context) { _ in
                ConsolePage(title: "Server", section: "/console/server", template: "server", data: try data(facts, context))
            }
        }
    }

    static func data(_ facts: ConsoleServerFacts, _ context: RequestContext) throws -> [String: Any] {
        var data: [String: Any] = [
            "version": facts.version, "startedAt": ConsoleFormat.time(facts.startedAt),
            "uptime": ConsoleFormat.duration(Date().timeIntervalSince(facts.startedAt)),
        ]
        let stats = facts.pool.stats
        data["pool"] = ["size": facts.pool.configuration.size, "open": stats.open, "inUse": stats.inUse,
                        "idle": stats.idle, "waiting": stats.waiting]
        var chosen: UUID?
        if let text = context.query["instance"], text != "all" {
            guard let id = UUID(uuidString: text) else { throw ConsoleError.invalid("Choose an instance from the list.") }
            chosen = id
        }
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
            try data.merge(instancesAndCharts(facts, chosen: chosen)) { $1 }
        } catch {
            // Logged in full; the page says what the API would answer.
            data["database"] = ["reachable": false, "problem": APIErrorRenderer.statusAndMessage(for: error, logger: context.logger).message]
        }
        let errors = facts.errors.recentServerErrors
        data["hasErrors"] = !errors.isEmpty
        data["errors"] = errors.map {
            ["at": ConsoleFormat.time($0.at), "method": $0.method, "route": $0.route, "status": $0.status, "requestID": $0.requestID]
        }
        return data
    }

    /// The instance list and the charts of the one chosen (`?instance=<id>`; absent or "all":
    /// the sum over every instance).
    static func instancesAndCharts(_ facts: ConsoleServerFacts, chosen: UUID?) throws -> [String: Any] {
        let store = InstanceStore(pool: facts.pool)
        let (instances, now) = try store.list()
        // An instance forgotten since the link was made: the sum over all, and the page says so.
        let selected = chosen.flatMap { id in instances.first { $0.id == id } }
        let rows = instances.map { instance -> [String: Any] in
            let silent = now.timeIntervalSince(instance.lastSeen)
            return [
                "id": instance.id.uuidString.lowercased(), "address": instance.address, "version": instance.version,
                "startedAt": ConsoleFormat.time(instance.startedAt), "lastSeen": ConsoleFormat.time(instance.lastSeen),
                "silentFor": ConsoleFormat.duration(max(silent, 0)), "stale": silent > facts.heartbeat.staleAfter,
                "isThis": instance.id == facts.heartbeat.id, "selected": instance.id == selected?.id,
            ]
        }
        let versions = Set(instances.filter { now.timeIntervalSince($0.lastSeen) <= facts.heartbeat.staleAfter }.map(\.version))
        let end = now
        let start = end.addingTimeInterval(-3600)
        let samples = try store.samples(instanceID: selected?.id, since: start)
        return [
            "instances": rows, "staleAfter": ConsoleFormat.duration(facts.heartbeat.staleAfter),
            "heartbeat": ConsoleFormat.duration(facts.heartbeat.interval.timeInterval),
            "mixedVersions": versions.count > 1, "allSelected": selected == nil, "forgotten": chosen != nil && selected == nil,
            "chartsOf": selected.map { "\($0.address) (\($0.version))" } ?? "all instances together",
            "charts": ConsoleServerCharts.charts(samples, start: start, end: end),
        ]
    }
}
