@testable import Console
import Foundation
import Testing

/// Mustache parses templates when they are registered and fills them at run time, so a typo
/// shows up only when a page is drawn: every compiled-in template is rendered here once, with
/// sample data that exercises its sections, and the compiled-in copy must match console/.
@Suite struct ConsoleTemplateTests {
    static let script = "<script>alert(1)</script>"

    /// Sample data per template; a template without an entry fails `everyTemplateRenders`.
    static var samples: [String: [String: Any]] { [
        "layout": ["title": "T", "content": "<p>inner</p>", "css": "/c.css", "js": "/c.js", "notice": "Done.", "refresh": "3; url=/console/backups",
                   "viewer": ["name": script, "csrf": "tok", "nav": [["label": "People", "path": "/console/people", "current": true]]]],
        "sign-in": ["csrf": "tok", "email": script, "error": "The email or password is incorrect."],
        "message": ["heading": "Not found", "message": script, "back": "/console"],
        "people": ["q": script, "csrf": "tok", "none": false, "next": "/console/people?after=x", "first": "/console/people",
                   "people": [["id": "1", "name": script, "email": "a@b.c", "role": "admin", "active": true]]],
        "person": ["id": "1", "personID": "1", "name": script, "email": "a@b.c", "role": "realtor", "isAdmin": false,
                   "active": true, "isSelf": false, "created": "now", "deactivatedAt": "—", "csrf": "tok", "hasSessions": true,
                   "sessions": [["id": "s", "device": script, "address": "127.0.0.1", "created": "now", "lastUsed": "now", "current": true]],
                   "hasKeys": true, "keys": [["id": "k", "name": script, "prefix": "dsk_", "created": "now", "lastUsed": "—", "expires": "never"]],
                   "slack": ["linked": true, "slackUser": script, "since": "now", "configured": true]],
        "integrations": ["noEndpoints": false, "csrf": "tok",
                         "endpoints": [["id": "1", "url": script, "description": script, "events": "*", "enabled": true,
                                        "failingSince": "now", "hasLast": true,
                                        "last": ["status": "dead", "at": "now", "error": script]]],
                         "slack": ["configured": true, "team": "T1", "webhook": script, "events": "task.created", "paused": true,
                                   "pausedAt": "now", "pauseReason": script, "rotating": true, "updated": "now", "noLinks": false,
                                   "links": [["slackUser": "U1", "name": script, "person": "/console/people/1"]]]],
        "webhook": ["id": "1", "url": script, "description": script, "events": "*", "enabled": false, "disabledReason": script,
                    "rotating": true, "previousUntil": "now", "created": "now", "csrf": "tok", "noDeliveries": false,
                    "statuses": [["name": "dead", "selected": true]],
                    "deliveries": [["id": "d", "endpointID": "1", "event": "msg_1", "type": "task.created", "status": "dead",
                                    "attempts": 3, "httpStatus": "500", "duration": "5 ms", "error": script, "at": "now", "next": "—"]]],
        "account": ["heading": script, "error": script, "form": true, "token": "t", "type": "invite", "choosesPassword": true,
                    "button": "Set password", "done": true, "message": script, "appLink": "com.example.dispatch://login"],
        "wake-ups": ["name": script, "noPushDevices": false,
                     "pushDevices": [["platform": "Android", "tokenEnd": "abc123", "app": script, "registered": "now",
                                      "lastPush": "never", "failedAt": "now", "failure": script]]],
        "secret-once": ["url": script, "secret": "whsec_x", "back": "/console/integrations/webhooks/1"],
        "password-once": ["heading": script, "email": "a@b.c", "password": "secret", "person": "/console/people/1"],
        "server": ["version": "1", "startedAt": "now", "uptime": "1 s",
                   "database": ["reachable": true, "roundTrip": "1 ms"], "pool": ["size": 2, "open": 1, "inUse": 1, "idle": 0, "waiting": 0],
                   "charts": [["label": script, "help": script, "now": "1 /min", "range": "0 /min to 3 /min",
                               "svg": SVGChart.svg([SVGChart.Point(at: Date(timeIntervalSince1970: 60), value: 1)],
                                                   start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 3600),
                                                   step: 60, label: "Requests", unit: { "\($0) /min" })]],
                   "instances": [["id": "1", "address": script, "version": script, "startedAt": "now", "lastSeen": "now",
                                  "silentFor": "1 s", "stale": true, "isThis": true, "selected": true]],
                   "staleAfter": "45 s", "heartbeat": "15 s", "mixedVersions": true, "allSelected": false, "forgotten": true, "chartsOf": script,
                   "hasErrors": true, "errors": [["at": "now", "method": "GET", "route": script, "status": 500, "requestID": "r"]],
                   "upToDate": true, "migrations": [["version": "0001", "name": "x", "appliedAt": "now"]]],
        "overview": ["allWell": false, "problems": 1,
                     "checks": [["title": script, "state": "bad", "badge": "needs action", "text": script, "link": "/console/server",
                                 "linkText": "Server", "help": script]],
                     "work": [["value": 3, "label": script, "link": "/console/work?type=tasks", "help": script]]],
        "audit": ["actor": script, "actions": [["name": "person.create", "selected": true]], "none": false,
                  "entries": [["at": "now", "actor": "a@b.c", "action": "person.create", "target": "user 1", "summary": script,
                               "person": "/console/people/1"]], "next": "/console/audit?before=1"],
    ].merging(dataSamples) { $1 }.merging(opsSamples) { $1 } }

    @Test func everyTemplateRenders() throws {
        let renderer = try ConsoleRenderer()
        for name in ConsoleAssets.templates.keys.sorted() {
            let sample = try #require(Self.samples[name], "no sample data for template \(name)")
            let html = renderer.html(name, sample)
            #expect(!html.isEmpty, "\(name) rendered nothing")
            #expect(!html.contains("{{") && !html.contains("}}"), "\(name) left a tag unrendered")
            if name != "layout" {
                #expect(!html.contains(Self.script), "\(name) let markup through unescaped")
                #expect(html.contains("&lt;script&gt;"), "\(name) did not show the sample's text")
            }
        }
        for name in Self.samples.keys { #expect(renderer.hasTemplate(name), "sample for a template that does not exist: \(name)") }
    }

    /// The layout wraps `content` unescaped (it is rendered HTML) but escapes the viewer's name.
    @Test func layoutEscapesDataButNotTheRenderedPage() throws {
        let html = try ConsoleRenderer().html("layout", Self.samples["layout"] ?? [:])
        #expect(html.contains("<p>inner</p>"))
        #expect(!html.contains(Self.script) && html.contains("&lt;script&gt;"))
        #expect(html.contains(#"aria-current="page""#))
    }

    /// Sources/Console/Generated/ is what scripts/generate-console-assets makes of console/.
    @Test func compiledInFilesMatchTheSources() throws {
        let root = ProjectPaths.root + "/console"
        for (folder, compiled, suffix) in [("templates", ConsoleAssets.templates, ".mustache"), ("assets", ConsoleAssets.files, "")] {
            let names = try FileManager.default.contentsOfDirectory(atPath: "\(root)/\(folder)").sorted()
            #expect(names.map { String($0.dropLast(suffix.count)) }.sorted() == compiled.keys.sorted(),
                    "console/\(folder) and the compiled-in copy list different files: run scripts/generate-console-assets")
            for name in names {
                let text = try String(contentsOfFile: "\(root)/\(folder)/\(name)", encoding: .utf8)
                #expect(compiled[String(name.dropLast(suffix.count))] == text,
                        "console/\(folder)/\(name) changed since it was compiled in: run scripts/generate-console-assets")
            }
        }
    }
}
