import Foundation
import HTTPServer
import Mail

/// `/console/mail`: the outbox across every instance (queued, sending, sent and dead in the
/// last day; the latest deliveries with status, attempts and last error, recipients shown and
/// bodies never), the relay settings in force (never the password), "Send a test mail" to the
/// signed-in administrator through the outbox, and for a dead invitation, sign-in or recovery
/// mail "Send a new one": a fresh code and link through the API's own path, audited.
enum ConsoleMailRoutes {
    /// The kinds whose mail carries a link a person is waiting for.
    static let renewable: [String: String] = ["invite": "invitation", "magic_link": "sign-in code", "recovery": "password reset"]

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/mail") { request, context in
            try site.page(request, context) { _ in
                ConsolePage(title: "Mail", section: "/console/mail", template: "mail", data: try data(site))
            }
        }
        router.post("/console/mail/test") { request, context in
            try site.action(request, context) { viewer, _ in
                let setup = try mail(site)
                let id = try site.auth.pool.withTransaction { connection in
                    try setup.outbox.enqueue(.test, to: try MailAddress(viewer.user.email, name: viewer.user.name), on: connection)
                }
                try site.record(viewer, action: "mail.test", targetType: "mail", targetID: id.uuidString.lowercased(),
                                summary: "Queued a test mail to \(viewer.user.email)")
                return .redirect("/console/mail?done=test-mail")
            }
        }
        router.post("/console/mail/{id}/renew") { request, context in
            try site.action(request, context) { viewer, _ in
                guard let id = UUID(uuidString: try context.pathParameter("id")),
                      let dead = try MailReport(pool: site.auth.pool).find(id) else { throw ConsoleError.notFound("That mail") }
                guard dead.status == "dead", renewable[dead.kind] != nil else {
                    throw ConsoleError.invalid("Only a dead invitation, sign-in or password-reset mail can be sent anew.")
                }
                _ = try site.auth.sendNewMail(kind: dead.kind, to: dead.recipient)
                try site.record(viewer, action: "mail.renew", targetType: "mail", targetID: id.uuidString.lowercased(),
                                summary: "Sent a new \(renewable[dead.kind] ?? dead.kind) to \(dead.recipient) in place of a dead one")
                return .redirect("/console/mail?done=mail-resent")
            }
        }
    }

    static func mail(_ site: ConsoleSite) throws -> ConsoleMailSetup {
        guard let mail = site.mail else { throw ConsoleError.notFound("Outgoing mail on this server") }
        return mail
    }

    static func data(_ site: ConsoleSite) throws -> [String: Any] {
        let setup = try mail(site)
        let report = MailReport(pool: site.auth.pool)
        let counts = try report.counts()
        let recent = try report.recent()
        var data: [String: Any] = [
            "queued": counts.queued, "sending": counts.sending, "sent": counts.sentLastDay, "dead": counts.deadLastDay, "hasDead": counts.deadLastDay > 0,
            "maxAttempts": setup.maxAttempts, "hasMail": !recent.isEmpty,
            "mails": recent.map { mail -> [String: Any] in
                [
                    "id": mail.id.uuidString.lowercased(), "kind": mail.kind, "recipient": mail.recipient,
                    "created": ConsoleFormat.time(mail.createdAt), "status": mail.status, "attempts": mail.attempts,
                    "error": mail.lastError ?? "", "when": ConsoleFormat.time(mail.sentAt ?? mail.deadAt ?? mail.nextAttemptAt),
                    "badge": ["sent": "ok", "dead": "bad", "sending": "warn"][mail.status] ?? "idle",
                    "renewable": mail.status == "dead" && renewable[mail.kind] != nil, "what": renewable[mail.kind] ?? mail.kind,
                ]
            },
        ]
        if let host = setup.host {
            data["smtp"] = ["host": host, "port": setup.port ?? 0, "tls": setup.tls ?? "", "user": setup.username ?? "none",
                            "sender": setup.outbox.sender.email] as [String: Any]
        } else {
            data["files"] = ["directory": setup.fileDirectory ?? "", "sender": setup.outbox.sender.email]
        }
        return data
    }
}
