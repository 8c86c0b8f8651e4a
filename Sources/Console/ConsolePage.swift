import HTTP1

/// One page for the layout to wrap: which template renders `data`, under which title and
/// navigation entry (`ConsoleNav`). Values in `data` are what Mustache reads: strings, numbers,
/// booleans, arrays and `[String: Any]` dictionaries; every `{{value}}` is HTML-escaped.
package struct ConsolePage {
    package var title: String
    /// The `ConsoleNav` path this page belongs to ("/console/people"), highlighted in the navigation.
    package var section: String
    package var template: String
    package var data: [String: Any]
    package var status: HTTPStatus

    package init(title: String, section: String, template: String, data: [String: Any] = [:], status: HTTPStatus = .ok) {
        self.title = title
        self.section = section
        self.template = template
        self.data = data
        self.status = status
    }
}

/// What a console form action answers: back to a page (Post/Redirect/Get, with a notice code
/// the page shows, `ConsoleNotice`), or a page at once (a secret shown only this once).
package enum ConsoleOutcome {
    case redirect(String)
    case page(ConsolePage)
}
