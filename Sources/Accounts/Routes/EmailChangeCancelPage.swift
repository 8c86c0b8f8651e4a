import Foundation
import HTTP1
import HTTPServer
import Mustache

/// The cancel link in an address change's notice to the old address: `GET` shows one button,
/// `POST` (that button) voids the pending change. Opening the link changes nothing, because
/// mail scanners (Outlook Safe Links and the like) open every link in a mail: a change the
/// owner asked for must not be cancelled by their own mail filter. One click on the page does
/// it, as long as the change is still pending.
///
/// Both answers read the same whatever the token was (pending, confirmed, expired, unknown),
/// so the page tells nothing about the account. Plain HTML with no script, no referrer, no
/// caching and no framing; the token is high-entropy and single-purpose, so the form needs no
/// CSRF token (a forged post could only cancel a change whose token the forger already has).
enum EmailChangeCancelPage {
    static let path = "/v1/auth/email-change/cancel"
    static let maxBodyBytes = 4096

    static func register(on router: inout Router, auth: AuthService) {
        router.get(path) { _, context in
            .response(page(title: "Cancel the e-mail address change", paragraphs: [
                "Someone asked to change the e-mail address of your account. If it was not you, cancel the change; "
                    + "then change your password and tell your administrator.",
            ], formToken: context.query["token"] ?? ""))
        }
        router.post(path) { request, _ in
            let type = request.headers["Content-Type"]?.lowercased() ?? ""
            guard request.body.count <= maxBodyBytes, type.hasPrefix("application/x-www-form-urlencoded") else {
                return .response(page(title: "Cancel the e-mail address change", status: .badRequest,
                                      paragraphs: ["Use the button on the page the link opened."]))
            }
            let token = QueryParameters(parsing: Substring(decoding: request.body, as: UTF8.self))["token"] ?? ""
            if !token.isEmpty { _ = try auth.cancelEmailChange(token: token) }
            return .response(page(title: "No e-mail address change is pending", paragraphs: [
                "If a change of your account's e-mail address was pending, it is cancelled: the address stays as it was. "
                    + "A change that was already confirmed cannot be undone here; ask your administrator.",
                "If you did not ask for the change, change your password now.",
            ]))
        }
    }

    /// The page, rendered by Mustache (every value HTML-escaped). Parsed once; a constant.
    static let template: MustacheTemplate = {
        do {
            return try MustacheTemplate(string: """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>{{title}}</title></head>
                <body style="font-family: sans-serif; line-height: 1.5; max-width: 36em; margin: 2em auto;">
                <h1>{{title}}</h1>
                {{#paragraphs}}<p>{{.}}</p>
                {{/paragraphs}}{{#form}}<form method="post" action="{{path}}">
                <input type="hidden" name="token" value="{{token}}">
                <button type="submit">Cancel the change</button>
                </form>
                {{/form}}</body></html>

                """)
        } catch {
            preconditionFailure("the cancel page's template does not parse: \(error)")
        }
    }()

    static func page(title: String, status: HTTPStatus = .ok, paragraphs: [String], formToken: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.set(name: "Cache-Control", value: "no-store")
        headers.set(name: "Referrer-Policy", value: "no-referrer")
        headers.set(name: "Content-Security-Policy", value: "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
        headers.set(name: "X-Frame-Options", value: "DENY")
        var values: [String: Any] = ["title": title, "paragraphs": paragraphs, "path": path]
        if let formToken { values["form"] = ["token": formToken] }
        return HTTPResponse(status: status, headers: headers, body: Array(template.render(values).utf8))
    }
}
