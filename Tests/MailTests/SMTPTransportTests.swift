import Foundation
import Mail
import TestSupport
import Testing

/// libcurl against the real relay in each TLS mode: TLS is never optional and certificates
/// are always verified.
@Suite struct SMTPTransportTests {
    static let message = "From: a@example.com\r\nTo: b@example.com\r\nSubject: t\r\n\r\nbody\r\n"

    func deliver(_ settings: SMTPSettings) throws(MailDeliveryError) {
        try SMTPTransport(settings: settings, connectTimeout: .seconds(2), timeout: .seconds(10))
            .deliver(Self.message, from: "a@example.com", to: "b@example.com", cancellation: MailCancellation())
    }

    @Test func implicitTLSDelivers() throws {
        let smtp = try SMTPCapture(tls: "implicit")
        try deliver(SMTPSettings(host: "127.0.0.1", port: smtp.port, tls: .implicit, caFile: smtp.caFile))
        let messages = smtp.waitForMessages(1)
        #expect(messages.count == 1 && messages.first?.tls == true)
        #expect(messages.first?.data.hasSuffix("body\r\n") == true)
    }

    /// A relay that offers no STARTTLS gets nothing: the client refuses to go on in plaintext.
    @Test func starttlsIsRequiredNotOpportunistic() throws {
        let smtp = try SMTPCapture(tls: "none")
        #expect(throws: MailDeliveryError.self) { try deliver(SMTPSettings(host: "127.0.0.1", port: smtp.port, tls: .starttls)) }
        #expect(smtp.messages().isEmpty)
        // The same relay, plaintext allowed explicitly (loopback only): delivered.
        try deliver(SMTPSettings(host: "127.0.0.1", port: smtp.port, tls: .none))
        #expect(smtp.waitForMessages(1).first?.tls == false)
    }

    /// The relay's certificate is checked: without SMTP_CA_FILE its private CA is not trusted.
    @Test func untrustedCertificateIsRefused() throws {
        let smtp = try SMTPCapture()
        #expect(throws: MailDeliveryError.self) { try deliver(SMTPSettings(host: "127.0.0.1", port: smtp.port, tls: .starttls)) }
        #expect(smtp.messages().isEmpty)
    }
}
