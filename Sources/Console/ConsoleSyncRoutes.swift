import API
import Domain
import Foundation
import HTTPServer
import Store

/// `/console/sync`: "is their phone syncing". Every device (a sign-in session or an API key)
/// most recently seen first, with its last sync and push and its trouble counters (410 resets,
/// rejected pushes, conflicts); `/console/sync/{user}`: one person's devices, each with how far
/// behind the head it is, asked of the sync feed from the cursor the device last received
/// (`SyncFeed.lag`). What is recorded, and what it costs, is in DeviceActivity.
enum ConsoleSyncRoutes {
    static let pageSize = 50

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/sync") { request, context in
            try site.page(request, context) { _ in try overview(context.query, site: site) }
        }
        router.get("/console/sync/{user}") { request, context in
            try site.page(request, context) { _ in
                guard let id = UUID(uuidString: try context.pathParameter("user")), let user = try site.auth.users.find(id: id) else {
                    throw ConsoleError.notFound("That person")
                }
                return try person(user, site: site)
            }
        }
    }

    static func overview(_ query: QueryParameters, site: ConsoleSite) throws -> ConsolePage {
        let store = DeviceHealthStore(pool: site.auth.pool)
        var after: (seen: Date, id: UUID)?
        if let text = query["after"] {
            guard let id = UUID(uuidString: text), let device = try store.device(id) else {
                throw ConsoleError.invalid("That page link is no longer valid; start from the first page.")
            }
            after = (device.lastSeen, device.deviceID)
        }
        let devices = try store.recent(limit: pageSize + 1, after: after)
        let shown = Array(devices.prefix(pageSize))
        let view = try ConsoleRowView.load([], keys: [], extra: shown.map(\.userID), pool: site.auth.pool)
        var data: [String: Any] = [
            "devices": shown.map { device in
                var row = facts(device)
                row["person"] = view.name(device.userID.uuidString)
                row["personLink"] = "/console/sync/\(device.userID.uuidString.lowercased())"
                return row
            },
            "none": shown.isEmpty,
        ]
        if devices.count > pageSize, let last = shown.last { data["next"] = "/console/sync?after=\(last.deviceID.uuidString.lowercased())" }
        if after != nil { data["first"] = "/console/sync" }
        return ConsolePage(title: "Sync health", section: "/console/sync", template: "sync", data: data)
    }

    static func person(_ user: User, site: ConsoleSite) throws -> ConsolePage {
        let devices = try DeviceHealthStore(pool: site.auth.pool).devices(userID: user.id)
        let feed = SyncFeed(pool: site.auth.pool)
        let viewer = Viewer(userID: user.id, isAdmin: user.isAdmin)
        let rows = try devices.map { device -> [String: Any] in
            var row = facts(device)
            let lag = try device.cursor.map { try feed.lag(viewer: viewer, cursor: $0) }
            switch lag {
            case .caughtUp?: (row["lag"], row["lagState"]) = ("Up to date", "ok")
            case .behind(let changes, let more, let since)?:
                let age = since.map { " (oldest from \(ConsoleFormat.duration(Date().timeIntervalSince($0))) ago)" } ?? ""
                (row["lag"], row["lagState"]) = ("\(changes)\(more ? "+" : "") changes waiting\(age)", "warn")
            case .mustReset?: (row["lag"], row["lagState"]) = ("Must start over: its next sync answers 410", "refused")
            case .unknown?: (row["lag"], row["lagState"]) = ("Unknown (cursor from another server version)", "warn")
            case nil: (row["lag"], row["lagState"]) = ("Never synced", "idle")
            }
            return row
        }
        return ConsolePage(title: "Sync health: \(user.name)", section: "/console/sync", template: "devices", data: [
            "person": user.name, "name": user.name, "personID": user.id.uuidString.lowercased(), "devices": rows, "none": rows.isEmpty,
        ].merging(try ConsoleWakeUps.data(userID: user.id, site: site)) { $1 }
            .merging(ConsoleFailures.data(userID: user.id, site: site)) { $1 })
    }

    /// The recorded facts of a device, as table cells.
    static func facts(_ device: DeviceHealth) -> [String: Any] {
        let label = switch device.kind {
        case .session: device.userAgent.map { "App session: \($0.prefix(60))" } ?? "App session"
        case .apiKey: "API key \(device.keyName ?? "")"
        }
        let trouble = device.resets + device.rejected + device.conflicts + device.claimConflicts > 0
        return [
            "device": label, "lastSeen": ConsoleFormat.time(device.lastSeen), "lastSync": ConsoleFormat.time(device.lastSync),
            "lastPush": ConsoleFormat.time(device.lastPush), "syncs": device.syncs, "pushes": device.pushes,
            "resets": device.resets, "rejected": device.rejected, "conflicts": device.conflicts,
            "claimConflicts": device.claimConflicts, "trouble": trouble, "lastReset": ConsoleFormat.time(device.lastReset),
        ]
    }
}
