import Foundation
import Mustache

/// The subject, plain-text and HTML templates of every mail kind: the built-in ones
/// (templates/mail/, compiled in as `DefaultMailTemplates`), each replaceable by a file of the
/// same name in the operator's MAIL_TEMPLATES_DIR. All are parsed at start-up, so a broken
/// override stops the server instead of a mail.
///
/// Escaping: HTML templates escape every `{{value}}` for HTML (Mustache's default); subject
/// and plain-text templates are rendered as text, unescaped, and the subject is then made
/// a single header line (`HeaderEncoding`). Triple braces in an HTML override turn escaping
/// off: the operator's choice, documented as unsafe for user-supplied values.
public struct MailTemplates: Sendable {
    /// The three parts of one kind's mail.
    enum Part: String, CaseIterable {
        case subject, txt, html
    }

    /// One mail's rendered parts.
    public struct Rendered: Sendable, Equatable {
        public var subject: String
        public var text: String
        public var html: String
    }

    /// MAIL_SITE_NAME (`site_name`).
    public let siteName: String
    /// PUBLIC_URL (`site_url`).
    public let links: PublicLinks
    private let templates: [String: MustacheTemplate]

    /// Parses the built-in templates and the overrides in `overridesDirectory` (nil: none).
    /// A `.mustache` file there that names no kind and part is refused, so a misspelt
    /// override does not silently leave the default in place.
    public init(siteName: String, links: PublicLinks, overridesDirectory: String? = nil) throws(MailError) {
        self.siteName = siteName
        self.links = links
        var sources = DefaultMailTemplates.files
        if let overridesDirectory {
            for (name, text) in try Self.readOverrides(overridesDirectory) {
                guard sources[name] != nil else {
                    throw .unreadableTemplates("\(overridesDirectory)/\(name) is not a mail template name (<kind>.<subject|txt|html>.mustache; kinds: \(MailKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                sources[name] = text
            }
        }
        var parsed: [String: MustacheTemplate] = [:]
        for kind in MailKind.allCases {
            for part in Part.allCases {
                let name = Self.fileName(kind, part)
                guard let source = sources[name] else { throw .invalidTemplate(file: name, reason: "missing") }
                // Subject and text parts are text: nothing in them is HTML-escaped.
                let text = part == .html ? source : "{{% CONTENT_TYPE: TEXT}}" + source
                do {
                    parsed[name] = try MustacheTemplate(string: text)
                } catch {
                    throw .invalidTemplate(file: name, reason: String(describing: error))
                }
            }
        }
        templates = parsed
    }

    /// With a fixed PUBLIC_URL.
    public init(siteName: String, siteURL: String, overridesDirectory: String? = nil) throws(MailError) {
        try self.init(siteName: siteName, links: PublicLinks(baseURL: siteURL, redirectURLs: nil),
                      overridesDirectory: overridesDirectory)
    }

    static func fileName(_ kind: MailKind, _ part: Part) -> String {
        "\(kind.rawValue).\(part.rawValue).mustache"
    }

    /// Renders `content` for `recipient`. The subject is trimmed to one line here; header
    /// encoding happens when the message is built.
    public func render(_ content: MailContent, to recipient: MailAddress) -> Rendered {
        var values = content.variables
        values["site_name"] = siteName
        values["site_url"] = links.baseURL
        values["email"] = recipient.email
        func run(_ part: Part) -> String {
            // Every kind and part was parsed in init.
            templates[Self.fileName(content.kind, part)]?.render(values) ?? ""
        }
        let subject = run(.subject).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return Rendered(subject: subject, text: run(.txt), html: run(.html))
    }

    private static func readOverrides(_ directory: String) throws(MailError) -> [(String, String)] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadableTemplates("MAIL_TEMPLATES_DIR \(directory): \(error.localizedDescription)")
        }
        var files: [(String, String)] = []
        for name in names.sorted() where name.hasSuffix(".mustache") {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw .unreadableTemplates("\(path) cannot be read as UTF-8")
            }
            files.append((name, text))
        }
        return files
    }
}
