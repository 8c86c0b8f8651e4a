import Foundation
@testable import Mail
import Testing

/// Built-in templates, operator overrides and escaping.
@Suite struct MailTemplateTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// DefaultMailTemplates.swift holds exactly templates/mail/ (scripts/generate-mail-templates).
    @Test func generatedSourceIsCurrent() throws {
        let directory = Self.root + "/templates/mail"
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".mustache") {
            files[name] = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        }
        #expect(files == DefaultMailTemplates.files, "run scripts/generate-mail-templates")
        #expect(files.count == MailKind.allCases.count * 3)
    }

    /// A value is HTML-escaped in the HTML part and left alone in the text part and subject.
    @Test func htmlPartEscapesValuesTextPartDoesNot() throws {
        let templates = try MailTemplates(siteName: "Tom & Jerry's <Realty>", siteURL: "https://example.com")
        let recipient = try MailAddress("agent@example.com")
        let link = "https://example.com/auth/v1/verify?token=abc&type=recovery&redirect_to=\"><script>"
        let rendered = templates.render(.recovery(code: "123456", link: link, validMinutes: 15), to: recipient)
        #expect(rendered.html.contains("Tom &amp; Jerry&#39;s &lt;Realty&gt;"))
        #expect(rendered.html.contains("href=\"https://example.com/auth/v1/verify?token=abc&amp;type=recovery&amp;redirect_to=&quot;&gt;&lt;script&gt;\""))
        #expect(!rendered.html.contains("<script>"))
        #expect(!rendered.html.contains("<Realty>"))
        #expect(rendered.text.contains(link))
        #expect(rendered.text.contains("Tom & Jerry's <Realty>"))
        #expect(rendered.text.contains("123456") && rendered.html.contains("123456"))
        #expect(rendered.subject == "Reset your Tom & Jerry's <Realty> password")
    }

    /// Every kind renders with its own values (no kind is left with an empty variable).
    @Test func everyKindRendersItsValues() throws {
        let templates = try MailTemplates(siteName: "Dispatch", siteURL: "https://dispatch.example")
        let recipient = try MailAddress("a@example.com")
        let contents: [MailContent] = [
            .magicLink(code: "111111", link: "https://l/1", validMinutes: 15),
            .recovery(code: "222222", link: "https://l/2", validMinutes: 15),
            .invite(code: "333333", link: "https://l/3", validMinutes: 1440),
            .emailChange(code: "444444", link: "https://l/4", newEmail: "new@example.com", validMinutes: 15),
            .emailChangeNotice(newEmail: "new@example.com", cancelLink: "https://l/5"),
            .passwordChanged,
            .webhookDisabled(url: "https://hooks.example.com/in", reason: "the receiver answered 410 Gone"),
            .test,
        ]
        #expect(Set(contents.map(\.kind)) == Set(MailKind.allCases))
        for content in contents {
            let rendered = templates.render(content, to: recipient)
            #expect(!rendered.subject.isEmpty && !rendered.subject.contains("\n"))
            for value in content.variables.values {
                #expect(rendered.text.contains(value), "\(content.kind) text lacks \(value)")
                #expect(rendered.html.contains(value), "\(content.kind) html lacks \(value)")
            }
            #expect(rendered.text.contains("https://dispatch.example"))
        }
    }

    /// An override replaces one part; a misspelt or broken override refuses to load.
    @Test func overridesReplaceAndAreChecked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-templates-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "Code {{code}} for\n{{site_name}}".write(toFile: directory + "/magic_link.subject.mustache", atomically: true, encoding: .utf8)
        let templates = try MailTemplates(siteName: "Site", siteURL: "https://s", overridesDirectory: directory)
        let rendered = templates.render(.magicLink(code: "987654", link: "https://l", validMinutes: 15), to: try MailAddress("a@b.c"))
        #expect(rendered.subject == "Code 987654 for Site")
        #expect(rendered.text.contains("987654"))

        try "{{#code}}".write(toFile: directory + "/magic_link.subject.mustache", atomically: true, encoding: .utf8)
        #expect(throws: MailError.self) { try MailTemplates(siteName: "S", siteURL: "https://s", overridesDirectory: directory) }
        try FileManager.default.removeItem(atPath: directory + "/magic_link.subject.mustache")
        try "x".write(toFile: directory + "/magiclink.subject.mustache", atomically: true, encoding: .utf8)
        #expect(throws: MailError.self) { try MailTemplates(siteName: "S", siteURL: "https://s", overridesDirectory: directory) }
    }
}
