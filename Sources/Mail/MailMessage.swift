import Credentials
import Foundation

/// One mail as it goes over SMTP: an RFC 5322 message with a plain-text and an HTML
/// alternative (RFC 2046 multipart/alternative), UTF-8, every line CRLF-terminated and 7-bit.
///
/// Built here rather than with libcurl's MIME API: that API always wraps the body in
/// multipart/mixed and cannot encode a Subject or display name. libcurl still does the
/// protocol (envelope, dot-stuffing, STARTTLS, AUTH).
public struct MailMessage: Sendable, Equatable {
    /// Without angle brackets; also kept in `mail_outbox.message_id` for tracing a bounce.
    public let messageID: String
    /// The whole message: 7-bit ASCII, CRLF line ends.
    public let text: String

    public init(from sender: MailAddress, to recipient: MailAddress, rendered: MailTemplates.Rendered,
                date: Date = Date()) throws {
        let unique = try SecureRandom.bytes(16).map { String(format: "%02x", $0) }.joined()
        messageID = "\(unique)@\(sender.domain)"
        // The boundary holds "=_", which base64 lines never contain.
        let boundary = "=_dispatch_\(unique)"
        var lines = [
            "Date: \(Self.rfc5322Date(date))",
            "From: \(sender.headerValue)",
            "To: \(recipient.headerValue)",
            "Subject: \(HeaderEncoding.unstructured(rendered.subject))",
            "Message-ID: <\(messageID)>",
            // RFC 3834: an automatic mail; vacation responders should not answer it.
            "Auto-Submitted: auto-generated",
            "MIME-Version: 1.0",
            // Folded: with the boundary the line would pass the 78 characters RFC 5322 asks for.
            "Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", rendered.text), ("text/html", rendered.html)] {
            lines += ["--\(boundary)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += Self.base64Lines(body)
        }
        lines += ["--\(boundary)--", ""]
        text = lines.joined(separator: "\r\n")
    }

    /// The decoded plain-text part of a message built here (the development mailer logs it;
    /// tests read codes from it); nil for any other shape.
    public static func plainText(of message: String) -> String? {
        let marker = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        guard let start = message.range(of: marker)?.upperBound,
              let end = message.range(of: "\r\n--", range: start..<message.endIndex)?.lowerBound,
              let data = Data(base64Encoded: message[start..<end].replacingOccurrences(of: "\r\n", with: ""))
        else { return nil }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    }

    /// RFC 2045 base64 in lines of 76 characters, of the text in canonical form (CRLF).
    static func base64Lines(_ body: String) -> [String] {
        let canonical = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        let encoded = Data(canonical.utf8).base64EncodedString()
        var lines: [String] = []
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[start..<end]))
            start = end
        }
        return lines
    }

    /// RFC 5322 date-time in UTC: `Thu, 26 Nov 2026 23:04:05 +0000` (English names whatever
    /// the locale, which DateFormatter would need configuring for).
    static func rfc5322Date(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(Int(parts.tm_year) + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) +0000"
    }
}
