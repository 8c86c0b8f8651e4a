import Foundation
import Logging
@testable import Mail
import TestSupport
import Testing

/// Addresses, names and subjects can never add a header or a recipient.
@Suite struct MailHeaderTests {
    @Test(arguments: [
        "agent@example.com\r\nBcc: evil@example.com", "agent@example.com\nBcc: evil@example.com", "agent@example.com\r",
        "Eve <agent@example.com>", "agent@example.com>", "agent@exa mple.com", "agent@example.com,evil@example.com",
        "agent@@example.com", "agent@", "@example.com", "zoë@example.com", "agent@example.com\u{0}", "",
        String(repeating: "a", count: 250) + "@example.com",
    ])
    func unsafeAddressesAreRefused(_ address: String) {
        #expect(throws: MailError.self) { try MailAddress(address) }
    }

    @Test func senderSettingParses() throws {
        let named = try MailAddress(parsing: "\"Dispatch Office\" <no-reply@example.com>")
        #expect(named.email == "no-reply@example.com" && named.name == "Dispatch Office")
        #expect(try MailAddress(parsing: "no-reply@example.com").name == nil)
        #expect(throws: MailError.self) { try MailAddress(parsing: "Dispatch <no-reply@example.com\r\nBcc: x@y.z>") }
    }

    /// A name or subject carrying CR/LF and a header is flattened or encoded: the message has
    /// exactly the headers the server wrote, and non-ASCII text survives as RFC 2047 words.
    @Test func namesAndSubjectsCannotStartAHeader() throws {
        let sender = try MailAddress("no-reply@example.com", name: "Dispatch\r\nBcc: evil@example.com")
        let recipient = try MailAddress("agent@example.com", name: "Zoë Ångström\r\nBcc: evil@example.com")
        let rendered = MailTemplates.Rendered(subject: "Hello\r\nBcc: evil@example.com\r\n\r\nbody", text: "t", html: "<p>h</p>")
        let message = try MailMessage(from: sender, to: recipient, rendered: rendered)
        let head = try #require(message.text.components(separatedBy: "\r\n\r\n").first)
        let names = head.components(separatedBy: "\r\n").filter { !$0.hasPrefix(" ") }.map { $0.prefix { $0 != ":" } }
        #expect(names == ["Date", "From", "To", "Subject", "Message-ID", "Auto-Submitted", "MIME-Version", "Content-Type"])
        #expect(!message.text.lowercased().contains("\r\nbcc:"))
        let to = try #require(MailWorld.header("To", in: message.text))
        #expect(to.hasPrefix("=?UTF-8?B?") && to.hasSuffix(" <agent@example.com>"))
        #expect(Self.decodeWords(String(to.dropLast(" <agent@example.com>".count))) == "Zoë Ångström  Bcc: evil@example.com")
        #expect(MailWorld.header("Subject", in: message.text) == "Hello  Bcc: evil@example.com    body")
        let longSubject = String(repeating: "Überweisung ", count: 20)
        let encoded = try MailMessage(from: sender, to: recipient, rendered: .init(subject: longSubject, text: "", html: ""))
        let subject = try #require(MailWorld.header("Subject", in: encoded.text))
        #expect(Self.decodeWords(subject) == longSubject)
        #expect(encoded.text.components(separatedBy: "\r\n").allSatisfy { $0.count <= 78 })
    }

    /// The same through the real relay: one recipient, whatever the name says.
    @Test func injectedNameReachesOnlyTheRecipient() throws {
        let world = try MailWorld()
        _ = try world.database.pool.withTransaction { connection in
            try world.outbox.enqueue(.passwordChanged, to: try MailAddress("agent@example.com", name: "A\r\nBcc: evil@example.com\r\nX: y"),
                                     on: connection)
        }
        let sender = try world.makeSender()
        sender.start()
        defer { sender.stop() }
        let messages = world.smtp.waitForMessages(1)
        #expect(messages.count == 1)
        #expect(messages.first?.rcpt_tos == ["agent@example.com"])
        #expect(messages.first.map { MailWorld.header("Bcc", in: $0.data) == nil && MailWorld.header("X", in: $0.data) == nil } == true)
    }

    @Test func smtpSettingsAllowPlaintextOnlyOnLoopback() throws {
        for host in ["127.0.0.1", "127.3.4.5", "::1", "[::1]", "localhost"] {
            #expect(throws: Never.self) { try SMTPSettings(host: host, tls: .none) }
        }
        for host in ["mail.example.com", "10.0.0.1", "::2", "localhost.example.com", "128.0.0.1"] {
            #expect(throws: MailError.self) { try SMTPSettings(host: host, tls: .none) }
        }
        #expect(try SMTPSettings(host: "mail.example.com").port == 587)
        #expect(try SMTPSettings(host: "mail.example.com", tls: .implicit).url == "smtps://mail.example.com:465")
        #expect(throws: MailError.self) { try SMTPSettings(host: "mail.example.com", username: "u") }
    }

    /// Without SMTP: the message lands in a file (0600) and its text in the log.
    @Test func developmentMailerWritesFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dev-mail-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let transport = try FileMailTransport(directory: directory, logger: Logger(label: "dev-mail-test"))
        let message = try MailMessage(from: MailAddress("no-reply@localhost"), to: MailAddress("agent@example.com"),
                                      rendered: .init(subject: "s", text: "your code:\n    654321\n", html: "<p>654321</p>"))
        try transport.deliver(message.text, from: "no-reply@localhost", to: "agent@example.com", cancellation: MailCancellation())
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.count == 1 && files.first?.hasSuffix(".eml") == true)
        let path = directory + "/" + (files.first ?? "")
        #expect(FileManager.default.contents(atPath: path) == Data(message.text.utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(MailMessage.plainText(of: message.text) == "your code:\n    654321\n")
    }

    /// Decodes `=?UTF-8?B?…?=` words separated by folding whitespace.
    static func decodeWords(_ value: String) -> String {
        value.split(separator: " ").map { word -> String in
            guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?="),
                  let data = Data(base64Encoded: String(word.dropFirst(10).dropLast(2))) else { return String(word) }
            return String(decoding: data, as: UTF8.self)
        }.joined()
    }
}
