import HTTP1

/// One page for the layout to wrap: which template renders `data`, under which title and
/// navigation entry (`ConsoleNav`). Values in `data` are what Mustache reads: strings, numbers,
/// booleans, arrays and `[String: Any]` dictionaries; every `{{value}}` is HTML-escaped.
public struct ConsolePage {
    public var title: String
    /// The `ConsoleNav` path this page belongs to ("/console/people"), highlighted in the navigation.
    public var section: String
    public var template: String
    public var data: [String: Any]
    public var status: HTTPStatus

    public init(title: String, section: String, template: String, data: [String: Any] = [:], status: HTTPStatus = .ok) {
        self.title = title
        self.section = section
        self.template = template
        self.data = data
        self.status = status
    }
}

/// What a console form action answers: back to a page (Post/Redirect/Get, with a notice code
/// the page shows, `ConsoleNotice`), or a page at once (a secret shown only this once).
public enum ConsoleOutcome {
    case redirect(String)
    case page(ConsolePage)
}
