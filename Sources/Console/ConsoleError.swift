import HTTP1

/// Every way a console request fails, rendered as a page in one place (`ConsoleMiddleware`).
/// Store and API errors thrown inside console handlers are mapped there too.
enum ConsoleError: Error, Equatable {
    /// No live console session: the browser is sent to the sign-in page.
    case signInRequired
    /// A form without the session's CSRF token (or with another): refused, nothing changed.
    case csrfRejected
    /// Signed in, but not an active administrator (their console session has been ended).
    case notAdmin(name: String)
    /// The page or the row it names does not exist.
    case notFound(String)
    /// A form value the action cannot use; `message` says which and why.
    case invalid(String)

    var status: HTTPStatus {
        switch self {
        case .signInRequired: ConsoleSite.seeOther
        case .csrfRejected, .notAdmin: .forbidden
        case .notFound: .notFound
        case .invalid: .unprocessableContent
        }
    }

    var title: String {
        switch self {
        case .signInRequired: "Sign in"
        case .csrfRejected: "Form expired"
        case .notAdmin: "Administrators only"
        case .notFound: "Not found"
        case .invalid: "Cannot do that"
        }
    }

    var message: String {
        switch self {
        case .signInRequired: "Sign in to use the console."
        case .csrfRejected:
            "This form was not sent from a console page of your current session, so nothing was changed. Reload the page and try again."
        case .notAdmin(let name):
            "\(name), the console is for administrators. Your account is a realtor account: ask an administrator of your office if you need something changed."
        case .notFound(let what): "\(what) was not found."
        case .invalid(let message): message
        }
    }
}
