import API
import Foundation
import HTTPServer
import Store

/// `/console`, where a sign-in lands: "is everything all right?" One line per check, each
/// with its state and a link to the page where it is fixed (`ConsoleOverviewChecks`), then the
/// office's work at a glance, each count linking to the Work list it counts.
enum ConsoleOverviewRoutes {
    static func register(on router: inout Router, site: ConsoleSite, facts: ConsoleServerFacts) {
        router.get("/console") { request, context in
            try site.page(request, context) { _ in
                ConsolePage(title: "Overview", section: "/console", template: "overview", data: try data(site, facts, context))
            }
        }
    }

    static func data(_ site: ConsoleSite, _ facts: ConsoleServerFacts, _ context: RequestContext) throws -> [String: Any] {
        let checks = ConsoleOverviewChecks(facts: facts, logger: context.logger)
        let items = checks.all()
        var data: [String: Any] = [
            "checks": items.map(\.row),
            "allWell": items.allSatisfy { $0.state == .ok },
            "problems": items.filter { $0.state == .bad }.count,
        ]
        // The work counts need the database; when it is down the checks above already say so.
        if let work = try? OfficeOverviewStore(pool: facts.pool).work() {
            data["work"] = [
                count(work.openTasks, "open task", "open tasks", link: "/console/work?type=tasks&status=open",
                      help: "Tasks open and not yet started"),
                count(work.overdueTasks, "overdue task", "overdue tasks", link: "/console/work?type=tasks&overdue=1",
                      help: "Open or in progress, due before now"),
                count(work.unclaimedUrgentTasks, "urgent task nobody has taken", "urgent tasks nobody has taken",
                      link: "/console/work?type=tasks&status=open&priority=urgent&claimer=none",
                      help: "Open, urgent and unclaimed"),
                count(work.activitiesToday, "activity due today", "activities due today",
                      link: "/console/work?type=activities",
                      help: "Activities due today (UTC), \(work.activitiesDoneToday) of them done"),
            ]
        }
        return data
    }

    static func count(_ value: Int, _ one: String, _ many: String, link: String, help: String) -> [String: Any] {
        ["value": value, "label": value == 1 ? one : many, "link": link, "help": help]
    }
}
