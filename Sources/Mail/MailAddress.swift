import Foundation

/// An address a mail can be sent to or from: checked so it can stand in a header and an SMTP
/// envelope as is. CR, LF and every other control character, spaces, angle brackets, commas
/// and the other characters that would end or split an address are refused, not cleaned: an
/// address that needs cleaning is not the one the user gave. Non-ASCII addresses (SMTPUTF8)
/// are refused too; the relay may not speak it.
///
/// The display name is free text; it is encoded (RFC 2047) when it is not plain, so nothing
/// in it can start a new header line.
public struct MailAddress: Sendable, Equatable {
    public static let maximumLength = 254

    public let email: String
    public let name: String?

    public init(_ email: String, name: String? = nil) throws(MailError) {
        try Self.check(email)
        self.email = email
        // Control characters in a name become spaces: they can only come from a bad import,
        // and the name is shown, never used for delivery.
        let cleaned = name.map { String(String.UnicodeScalarView($0.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 })) }
        let trimmed = cleaned?.trimmingCharacters(in: .whitespaces)
        self.name = (trimmed?.isEmpty ?? true) ? nil : trimmed
    }

    /// `Name <address>` or a bare address, as SMTP_SENDER is written.
    public init(parsing text: String) throws(MailError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else {
            try self.init(trimmed)
            return
        }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        var name = String(trimmed[..<open]).trimmingCharacters(in: .whitespaces)
        if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
        try self.init(address, name: name)
    }

    /// The value of a From/To header: the name encoded when it is not plain ASCII words, and
    /// then the address folded onto its own line (the line length limit).
    public var headerValue: String {
        guard let name else { return email }
        let phrase = HeaderEncoding.phrase(name)
        return phrase == name && name.utf8.count < 40 ? "\(name) <\(email)>" : "\(phrase)\r\n <\(email)>"
    }

    /// The part after the last `@` (Message-ID uses the sender's).
    public var domain: Substring {
        email[email.index(after: email.lastIndex(of: "@") ?? email.startIndex)...]
    }

    private static let forbidden: Set<UInt8> = Set("<>()[]\\,;:\"".utf8)

    private static func check(_ email: String) throws(MailError) {
        let bytes = Array(email.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else {
            throw .invalidAddress("must be 1 to \(maximumLength) bytes")
        }
        // Printable ASCII without space: excludes CR, LF, NUL and every other control character.
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) && !forbidden.contains($0) }) else {
            throw .invalidAddress("contains a character that cannot stand in a mail header or envelope")
        }
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1,
              bytes.firstIndex(of: UInt8(ascii: "@")) == at
        else { throw .invalidAddress("must be local-part@domain") }
    }
}
