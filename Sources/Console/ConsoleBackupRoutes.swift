import Accounts
import Backups
import Foundation
import HTTP1
import HTTPServer
import Store

/// `/console/backups`: the backups this server took (when, how large, the database's size
/// then, verified or not, by whom or by the schedule), "Back up now" and "Verify" (each runs
/// on a thread of the backup service; the page refreshes itself while one runs), a download
/// that asks for the administrator's password again (the file holds every password hash),
/// and the exact restore command. Restoring is never done from here: it stops every server
/// and replaces the database this page is served from (docs/operators/backups.md).
enum ConsoleBackupRoutes {
    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/backups") { request, context in
            try site.page(request, context) { _ in
                ConsolePage(title: "Backups", section: "/console/backups", template: "backups", data: try data(try service(site)))
            }
        }
        router.post("/console/backups/run") { request, context in
            try site.action(request, context) { viewer, _ in
                let backups = try service(site)
                let id = try refusing { try backups.startBackup(by: .console(userID: viewer.user.id, email: viewer.user.email)) }
                try site.record(viewer, action: "backup.create", targetType: "backup_run", targetID: id.uuidString.lowercased(),
                                summary: "Started a backup")
                return .redirect("/console/backups?done=backup-started")
            }
        }
        router.post("/console/backups/verify") { request, context in
            try site.action(request, context) { viewer, form in
                let backups = try service(site)
                let name = try form.required("file", label: "The backup")
                let id = try refusing { try backups.startVerify(name: name, by: .console(userID: viewer.user.id, email: viewer.user.email)) }
                try site.record(viewer, action: "backup.verify", targetType: "backup_run", targetID: id.uuidString.lowercased(),
                                summary: "Started verifying \(name)")
                return .redirect("/console/backups?done=verify-started")
            }
        }
        router.post("/console/backups/download") { request, context in
            let viewer = try site.viewer(request)
            let form = try ConsoleForm(request)
            try form.requireCSRF(viewer.csrfToken)
            let backups = try service(site)
            let name = try form.required("file", label: "The backup")
            guard let file = backups.backupFile(named: name) else { throw ConsoleError.notFound("The backup \(name)") }
            // The file holds every password hash and sealed secret: the password again, checked
            // (and throttled) as a sign-in is, so an unattended signed-in browser is not enough.
            try site.auth.verifyCurrentPassword(viewer.user, form.fields["password"] ?? "", client: ClientInfo(request, context))
            let bytes: Data
            do { bytes = try Data(contentsOf: file) } catch { throw ConsoleError.notFound("The backup \(name)") }
            try site.record(viewer, action: "backup.download", targetType: "backup_file", targetID: name,
                            summary: "Downloaded \(name) (\(bytes.count) bytes)")
            return .response(HTTPResponse(status: .ok, headers: [
                "Content-Type": "application/x-tar", "Content-Disposition": "attachment; filename=\"\(name)\"",
                "Cache-Control": "no-store",
            ], body: Array(bytes)))
        }
    }

    static func service(_ site: ConsoleSite) throws -> BackupService {
        guard let backups = site.backups else { throw ConsoleError.notFound("Backups on this server") }
        return backups
    }

    /// A refusal of the service (already running, no such file) as the page's 422.
    static func refusing<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as BackupError { throw ConsoleError.invalid(error.message) }
    }

    static func data(_ backups: BackupService) throws -> [String: Any] {
        let listed = try backups.recent()
        let running = try backups.isRunning()
        let rows: [[String: Any]] = listed.map { item in
            let backup = item.backup
            let onDisk = backups.backupFile(named: backup.file) != nil
            var row: [String: Any] = [
                "file": backup.file, "at": ConsoleFormat.time(backup.startedAt), "state": backup.state,
                "succeeded": backup.state == "succeeded", "failed": backup.state == "failed", "running": backup.state == "running",
                "size": ConsoleFormat.bytes(backup.fileBytes), "databaseSize": ConsoleFormat.bytes(backup.databaseBytes),
                "by": who(backup), "instance": backup.instance, "detail": backup.detail ?? "",
                "onDisk": onDisk, "usable": onDisk && backup.state == "succeeded",
                "restore": backups.restoreCommand(for: backup.file),
            ]
            if let verify = item.verify {
                row["verify"] = [
                    "state": verify.state, "verified": verify.state == "succeeded", "failed": verify.state == "failed",
                    "running": verify.state == "running", "at": ConsoleFormat.time(verify.finishedAt ?? verify.startedAt),
                    "by": who(verify), "detail": verify.detail ?? "",
                ] as [String: Any]
            }
            return row
        }
        var data: [String: Any] = [
            "backups": rows, "hasBackups": !rows.isEmpty, "running": running,
            "directory": backups.directory.path, "restoreCommand": backups.restoreCommand,
        ]
        // Without JavaScript: the page reloads itself while a run is under way (without the
        // "started" notice, which would otherwise outlive the run).
        if running { data["refresh"] = "3; url=/console/backups" }
        return data
    }

    static func who(_ run: BackupRunStore.Run) -> String {
        switch run.source {
        case "schedule": "the daily schedule"
        case "command": "dispatchd backup (command line)"
        default: run.requestedByEmail ?? "an administrator"
        }
    }

}
