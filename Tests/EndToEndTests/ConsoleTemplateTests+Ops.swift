@testable import Console

extension ConsoleTemplateTests {
    /// Sample data for the Backups and Mail pages and a person's recent failures.
    static var opsSamples: [String: [String: Any]] {
        [
            "backups": ["directory": script, "running": true, "hasBackups": true, "csrf": "tok", "restoreCommand": script,
                        "backups": [["file": script, "at": "now", "succeeded": true, "failed": true, "running": true, "detail": script,
                                     "size": "1.0 MiB", "databaseSize": "9.0 MiB", "by": script, "instance": script, "onDisk": false,
                                     "usable": true, "restore": script,
                                     "verify": ["verified": true, "failed": true, "running": true, "at": "now", "by": script, "detail": script]]]],
            "mail": ["queued": 1, "sending": 0, "sent": 3, "dead": 1, "hasDead": true, "maxAttempts": 10, "hasMail": true, "csrf": "tok",
                     "smtp": ["host": "smtp.example.com", "port": 587, "tls": "starttls", "user": script, "sender": "a@b.c"],
                     "files": ["directory": script, "sender": "a@b.c"],
                     "mails": [["id": "m1", "kind": "invite", "recipient": script, "created": "now", "status": "dead", "attempts": 3,
                                "error": script, "when": "now", "badge": "bad", "renewable": true, "what": "invitation"]]],
            "failures": ["name": script, "noFailures": false,
                         "failures": [["at": "now", "method": "GET", "route": script, "status": 404, "serverError": false,
                                       "code": "not_found", "requestID": "r1"]]],
        ]
    }
}
