import Foundation
import Postgres
import Store
import Testing

/// The Work, Explain access, View as, Sync health and Off-boarding pages over real sockets, as
/// a browser uses them: every edit needs the session's CSRF token, runs the API's store code
/// (the API then answers accordingly), and leaves an audit row; stored markup stays inert.
@Suite struct ConsoleDataPagesTests {
    static let script = "<script>alert(1)</script>"

    func audits(_ world: ResourceWorld, _ action: String) throws -> Int {
        try world.count("SELECT count(*) FROM console_audit WHERE action = \(action)")
    }

    @Test func workPagesEditThroughTheAPIsStoresWithCSRFAndAudit() throws {
        let world = try ResourceWorld(withConsole: true)
        let scene = try world.scene()
        try world.app.database.pool.execute("UPDATE tasks SET title = \(Self.script), priority = 'urgent' WHERE id = \(scene.task)::uuid")
        let browser = ConsoleSession(world.app)
        try browser.signIn()

        let list = try browser.get("/console/work?type=tasks&priority=urgent&claimer=\(world.id(.claimer))")
        #expect(list.status == 200)
        let html = ConsoleSession.text(list)
        #expect(html.contains("/console/work/tasks/\(scene.task)") && !html.contains(Self.script) && html.contains("&lt;script&gt;"))
        #expect(!ConsoleSession.text(try browser.get("/console/work?type=tasks&priority=low")).contains(scene.task))
        #expect(try browser.get("/console/work?type=tasks&status=bogus").status == 422)
        #expect(ConsoleSession.text(try browser.get("/console/work?type=listings")).contains(scene.listing))

        let path = "/console/work/tasks/\(scene.task)"
        let detail = try browser.get(path)
        #expect(detail.status == 200 && ConsoleSession.text(detail).contains("Claim history"))
        #expect(try browser.post("\(path)/release", [:], csrf: false).status == 403)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE id = \(scene.task)::uuid AND claimed_by IS NOT NULL") == 1)

        #expect(try browser.post("\(path)/release", [:]).status == 303)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .admin).json?["claimed_by"] is NSNull)
        #expect(try browser.post("\(path)/reassign", ["to": world.id(.stranger)]).status == 303)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .stranger).json?["claimed_by"] as? String == world.id(.stranger))
        #expect(try browser.post("\(path)/status", ["status": "completed"]).status == 303)
        #expect(try browser.post("\(path)/delete", [:]).status == 303)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .declarer).json?["status"] as? String == "deleted")
        #expect(try browser.post("\(path)/restore", [:]).status == 303)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .declarer).json?["status"] as? String == "completed")
        for action in ["task.release", "task.reassign", "task.status", "task.delete", "task.restore"] {
            #expect(try audits(world, action) == 1, "\(action)")
        }
        #expect(try browser.post("\(path)/status", ["status": "deleted"]).status == 422)
    }

    @Test func explainViewAsSyncHealthAndOffboardingPages() throws {
        let world = try ResourceWorld(withConsole: true)
        let scene = try world.scene()
        let browser = ConsoleSession(world.app)
        try browser.signIn()

        let stranger = world.id(.stranger), claimer = world.id(.claimer)
        let no = ConsoleSession.text(try browser.get("/console/access?user=\(stranger)&type=task&id=\(scene.task)"))
        #expect(no.contains("does not see it"))
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .stranger).status == 404)
        let yes = ConsoleSession.text(try browser.get("/console/access?user=\(claimer)&type=task&id=\(scene.task)"))
        #expect(yes.contains("sees it") && !yes.contains("does not see it"))
        #expect(try browser.get("/console/access?user=\(claimer)&type=task&id=nope").status == 422)
        #expect(ConsoleSession.text(try browser.get("/console/access/view-as?user=\(claimer)")).contains(scene.task))

        #expect(try world.request("GET", "/v1/sync", as: .claimer).status == 200)
        try world.app.sync?.devices.flush()
        #expect(ConsoleSession.text(try browser.get("/console/sync")).contains("Claimer"))
        #expect(ConsoleSession.text(try browser.get("/console/sync/\(claimer)")).contains("Up to date"))

        #expect(ConsoleSession.text(try browser.get("/console/people/\(claimer)/offboard")).contains("Open claims"))
        #expect(try browser.post("/console/people/\(claimer)/offboard", ["claims_to": "release", "listings_to": world.id(.owner)],
                                 csrf: false).status == 403)
        #expect(try browser.post("/console/people/\(claimer)/offboard", ["claims_to": "release", "listings_to": world.id(.owner)]).status == 303)
        #expect(try world.count("SELECT count(*) FROM tasks WHERE claimed_by = \(claimer)::uuid") == 0)
        #expect(try audits(world, "person.offboard") == 1)
    }
}
