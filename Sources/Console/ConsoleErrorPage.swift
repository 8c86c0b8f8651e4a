import API
import HTTP1
import HTTPServer
import RouteKit

extension ConsoleSite {
    /// The one place a console failure becomes an answer: a missing session is a redirect to
    /// sign-in; a `ConsoleError` is a page with its status; anything else (store, database,
    /// API errors) gets the status and message the API would answer (`APIErrorRenderer`),
    /// logged the same way, as a page.
    package func errorPage(for error: any Error, context: RequestContext) -> HTTPResponse {
        if let console = error as? ConsoleError {
            if console == .signInRequired { return redirect("/console/sign-in") }
            var headers = HTTPHeaders()
            // The refused account's console session is over: drop its cookie too.
            if case .notAdmin = console { headers.add(name: "Set-Cookie", value: cookies.clear(ConsoleCookies.session)) }
            return renderer.response(Self.message(console.title, console.message, status: console.status,
                                                  back: Self.back(after: console)),
                                     viewer: nil, headers: headers)
        }
        let (status, message) = APIErrorRenderer.statusAndMessage(for: error, logger: context.logger)
        let title = status.code >= 500 ? "Something went wrong" : status.reason
        return renderer.response(Self.message(title, message, status: status, back: "/console"), viewer: nil)
    }

    static func back(after error: ConsoleError) -> String? {
        switch error {
        case .notAdmin: "/console/sign-in"
        case .csrfRejected: nil
        default: "/console"
        }
    }

    static func message(_ heading: String, _ message: String, status: HTTPStatus, back: String?) -> ConsolePage {
        var data: [String: Any] = ["heading": heading, "message": message]
        if let back { data["back"] = back }
        return ConsolePage(title: heading, section: "", template: "message", data: data, status: status)
    }
}
