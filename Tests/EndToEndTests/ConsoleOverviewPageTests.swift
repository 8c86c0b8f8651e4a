import Console
import Foundation
import Testing

/// `/console`, the overview: each check in plain words with its state and the page that fixes
/// it, read from what the database holds now; then the office's work, each count linking to
/// the list it counts.
@Suite struct ConsoleOverviewPageTests {
    static func row(_ html: String, _ check: String) -> String {
        html.components(separatedBy: "data-check=\"\(check)\"").dropFirst().first.map { String($0.prefix(while: { $0 != "\n" })) } ?? ""
    }

    @Test func aSignInLandsOnTheOverviewWhichSaysAllIsWellWhenItIs() throws {
        let fresh = ConsoleBackupSummary(latestName: "dispatch-backup-x.tar", latestAt: Date().addingTimeInterval(-3600), verified: true,
                                         verifiedAt: Date(), scheduled: true)
        let app = try AuthTestServer(withConsole: true, consoleBackupSummary: fresh)
        try #require(app.heartbeat).beat()
        let browser = ConsoleSession(app)
        #expect(try browser.signIn().header("Location") == "/console")
        let html = ConsoleSession.text(try browser.get("/console"))
        for (check, link) in [("Database", "/console/server"), ("Instances", "/console/server"), ("Backup", "/console/backups"),
                              ("Mail", "/console/mail"), ("Webhooks, Slack and notifications", "/console/integrations"),
                              ("Phones and apps", "/console/sync"), ("Server errors", "/console/server")] {
            let row = Self.row(html, check)
            #expect(row.contains("href=\"\(link)\""), "\(check) links to \(link)")
            #expect(row.contains("badge ok"), "\(check): \(row)")
        }
        #expect(html.contains("Everything is all right."))
        #expect(Self.row(html, "Instances").contains("1 running (version test)"))
        #expect(html.contains("href=\"/console/work?type=tasks&amp;status=open&amp;priority=urgent&amp;claimer=none\""))
    }

    @Test func theOverviewNamesWhatIsWrongAndWhere() throws {
        struct Boom: Error {}
        let app = try AuthTestServer(withConsole: true, adjustRouter: { router in  // and no backup recorded
            router.get("/v1/boom") { _, _ in throw Boom() }
        })
        let pool = app.database.pool
        try pool.execute("""
            INSERT INTO mail_outbox (kind, recipient, message_id, attempts, dead_at, last_error)
            VALUES ('invite', 'a@example.com', 'm1', 5, now() - interval '2 hours', 'refused'),
                   ('invite', 'b@example.com', 'm2', 1, NULL, 'timeout')
            """)
        try pool.execute("""
            INSERT INTO sync_device_health (device_id, device_kind, user_id, first_seen_at, last_seen_at, last_sync_at)
            VALUES (gen_random_uuid(), 'session', \(app.admin.id), now() - interval '5 days', now() - interval '2 days', now() - interval '2 days')
            """)
        try pool.execute("""
            INSERT INTO tasks (title, priority, declared_by, due_date) VALUES
                ('Call the buyer', 'urgent', \(app.admin.id), now() - interval '1 day'),
                ('Stage the flat', 'low', \(app.admin.id), now() + interval '1 day')
            """)
        let heartbeat = try #require(app.heartbeat)
        #expect(try app.request("GET", "/v1/boom").status == 500)
        try heartbeat.beat()
        let browser = ConsoleSession(app)
        try browser.signIn()
        let html = ConsoleSession.text(try browser.get("/console"))
        #expect(!html.contains("Everything is all right."))
        #expect(Self.row(html, "Backup").contains("No backup recorded yet") || Self.row(html, "Backup").contains("No backup recorded,"))
        #expect(Self.row(html, "Backup").contains("badge bad"))
        let mail = Self.row(html, "Mail")
        #expect(mail.contains("1 waiting to be sent (1 after a failed try)") && mail.contains("1 given up on in the last day"))
        #expect(mail.contains("badge bad"))
        #expect(Self.row(html, "Server errors").contains("1 in the last hour"))
        #expect(Self.row(html, "Phones and apps").contains("1 device has not synced for over a day"))
        #expect(html.contains(#"<span class="big">2</span> open tasks"#))
        #expect(html.contains(#"<span class="big">1</span> overdue task"#))
        #expect(html.contains(#"<span class="big">1</span> urgent task nobody has taken"#))
    }
}
