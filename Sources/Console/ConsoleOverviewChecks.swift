import API
import Foundation
import Logging
import Operations
import RouteKit
import Store

/// The overview's checks, each a plain sentence with a state and the page where it is fixed.
/// Each reads what the server records now; a check whose data cannot be read says so rather
/// than passing.
struct ConsoleOverviewChecks {
    enum State: String { case ok, warn, bad }

    struct Item {
        var title: String
        var state: State
        var text: String
        var link: String
        var linkText: String
        /// The technical term or rule behind the sentence, for the tooltip.
        var help: String

        var row: [String: Any] {
            ["title": title, "state": state.rawValue, "badge": state == .ok ? "all right" : state == .warn ? "look" : "needs action",
             "text": text, "link": link, "linkText": linkText, "help": help]
        }
    }

    let facts: ConsoleServerFacts
    let logger: Logger

    func all() -> [Item] {
        let started = Date()
        var items: [Item] = []
        do {
            _ = try facts.pool.query("SELECT 1 AS one")
            items.append(Item(title: "Database", state: .ok, text: "Reachable, round trip \(ConsoleFormat.milliseconds(Date().timeIntervalSince(started))).",
                              link: "/console/server", linkText: "Server", help: "SELECT 1 through the connection pool"))
        } catch {
            let message = APIErrorRenderer.statusAndMessage(for: error, logger: logger).message
            items.append(Item(title: "Database", state: .bad, text: "Not reachable: \(message)", link: "/console/server", linkText: "Server",
                              help: "SELECT 1 through the connection pool failed; the log has the details"))
            return items + [backups()]
        }
        items.append(instances())
        items.append(backups())
        guard let health = try? OfficeOverviewStore(pool: facts.pool).health() else {
            return items + [Item(title: "Outboxes", state: .bad, text: "Could not be read; the log says why.", link: "/console/server",
                                 linkText: "Server", help: "mail_outbox, webhook_deliveries, slack_outbox, push_outbox")]
        }
        items.append(outbox("Mail", health.mail, what: "mails", link: "/console/mail", linkText: "Mail",
                            help: "The mail outbox: queued, retrying after a failed attempt, and dead (given up) in the last 24 hours"))
        let integrations = [("webhook deliveries", health.webhooks), ("Slack posts", health.slack), ("phone notifications", health.push)]
        items.append(integrationsItem(integrations))
        items.append(Item(title: "Phones and apps", state: health.devicesNotSynced > 0 ? .warn : .ok,
                          text: health.devicesNotSynced == 0 ? "Every device used this month synced within the last day."
                              : "\(health.devicesNotSynced) \(health.devicesNotSynced == 1 ? "device has" : "devices have") not synced for over a day.",
                          link: "/console/sync", linkText: "Sync health",
                          help: "Sessions and API keys seen in the last 30 days whose last sync is more than 24 hours old"))
        let errors = health.serverErrorsLastHour
        items.append(Item(title: "Server errors", state: errors > 0 ? .bad : .ok,
                          text: errors == 0 ? "None in the last hour." : "\(errors) in the last hour, all instances together.",
                          link: "/console/server", linkText: "Server",
                          help: "Answers with a 5xx status, counted by every instance's heartbeat; each is logged with its request id"))
        return items
    }

    func instances() -> Item {
        guard let (instances, now) = try? InstanceStore(pool: facts.pool).list() else {
            return Item(title: "Instances", state: .bad, text: "Could not be read; the log says why.", link: "/console/server",
                        linkText: "Server", help: "server_instances")
        }
        let running = instances.filter { now.timeIntervalSince($0.lastSeen) <= facts.heartbeat.staleAfter }
        let stale = instances.count - running.count
        let versions = Set(running.map(\.version)).sorted()
        var text = "\(running.count) running (version \(versions.joined(separator: ", ")))."
        if running.isEmpty { text = "None has sent a heartbeat recently." }
        if stale > 0 { text += " \(stale) stopped or unreachable." }
        return Item(title: "Instances", state: running.isEmpty || stale > 0 ? .warn : versions.count > 1 ? .warn : .ok, text: text,
                    link: "/console/server", linkText: "Server",
                    help: "Each dispatchd process writes a heartbeat every \(ConsoleFormat.duration(facts.heartbeat.interval.timeInterval)); silent for more than \(ConsoleFormat.duration(facts.heartbeat.staleAfter)) is stale")
    }

    func backups() -> Item {
        let summary = facts.backups()
        let help = "Backups are tar files in BACKUP_DIR; `dispatchd restore --verify FILE` proves one restores completely"
        guard let at = summary.latestAt else {
            return Item(title: "Backup", state: .bad,
                        text: summary.scheduled ? "No backup recorded yet." : "No backup recorded, and daily backups are off.",
                        link: "/console/backups", linkText: "Backups", help: help)
        }
        let age = Date().timeIntervalSince(at)
        let fresh = age < BackupStatus.freshFor
        var text = "The last one is \(ConsoleFormat.duration(max(age, 0))) old"
        switch summary.verified {
        case true?: text += ", verified \(ConsoleFormat.time(summary.verifiedAt))."
        case false?: text += ", and its verification FAILED."
        case nil: text += ", not verified yet."
        }
        if summary.lastAttemptFailed { text += " The last scheduled backup failed; the log says why." }
        let state: State = !fresh || summary.lastAttemptFailed || summary.verified == false ? .bad : summary.verified == nil ? .warn : .ok
        return Item(title: "Backup", state: state, text: text, link: "/console/backups", linkText: "Backups", help: help)
    }

    func outbox(_ title: String, _ box: OfficeOverviewStore.Outbox, what: String, link: String, linkText: String, help: String) -> Item {
        let state: State = box.deadToday > 0 ? .bad : box.retrying > 0 ? .warn : .ok
        var text = "\(box.queued) waiting to be sent"
        if box.retrying > 0 { text += " (\(box.retrying) after a failed try)" }
        text += box.deadToday == 0 ? "; none given up on today." : "; \(box.deadToday) given up on in the last day."
        return Item(title: title, state: state, text: text, link: link, linkText: linkText, help: help)
    }

    func integrationsItem(_ boxes: [(String, OfficeOverviewStore.Outbox)]) -> Item {
        let dead = boxes.filter { $0.1.deadToday > 0 }.map { "\($0.1.deadToday) \($0.0)" }
        let retrying = boxes.filter { $0.1.retrying > 0 }.map { "\($0.1.retrying) \($0.0)" }
        var text = dead.isEmpty && retrying.isEmpty ? "Nothing failing." : ""
        if !dead.isEmpty { text += "Given up on in the last day: \(dead.joined(separator: ", ")). " }
        if !retrying.isEmpty { text += "Retrying after a failure: \(retrying.joined(separator: ", "))." }
        return Item(title: "Webhooks, Slack and notifications", state: !dead.isEmpty ? .bad : !retrying.isEmpty ? .warn : .ok,
                    text: text.trimmingCharacters(in: .whitespaces), link: "/console/integrations", linkText: "Integrations",
                    help: "Deliveries in the webhook, Slack and push outboxes: retrying (attempts > 0) and dead in the last 24 hours")
    }
}
