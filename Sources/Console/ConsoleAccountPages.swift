import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer

/// `/account/verify`: where an invitation, recovery or address-change mail's link lands when no
/// app redirect is configured (GoTrue's verify answers 303 here, the link unspent). For people
/// who are not administrators, in the console's design and under its CSP, without JavaScript:
/// GET shows what the link will do and spends nothing (a mail scanner that opens it harms
/// nobody); the form's POST spends it (`AuthService.completeAccountLink`) and answers "done,
/// open the app". The token is the only credential: there is no session, so no CSRF token.
package enum ConsoleAccountPages {
    package static let path = "/account/verify"

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get(path) { _, context in
            guard let link = AuthService.AccountLink(rawValue: context.query["type"] ?? ""),
                  let token = context.query["token"], !token.isEmpty, token.count <= 512
            else { return .response(page(site, heading: "This link is not complete", error: invalidLink, status: .badRequest)) }
            guard try site.auth.accountLinkIsUsable(link, token: token) else { return .response(spent(site, link)) }
            return .response(form(site, link, token: token, error: nil, status: .ok))
        }
        router.post(path) { request, context in
            let form = try ConsoleForm(request)
            guard let link = AuthService.AccountLink(rawValue: form["type"] ?? ""), let token = form["token"], token.count <= 512 else {
                return .response(page(site, heading: "This link is not complete", error: invalidLink, status: .badRequest))
            }
            let password = form.fields["password"]
            if link.choosesPassword, password != form.fields["password_confirm"] {
                return .response(self.form(site, link, token: token, error: "The two passwords differ. Type the same password twice.",
                                           status: .unprocessableContent))
            }
            let client = ClientInfo(request, context)
            return site.auth.passwordWork.respond(context) {
                complete(site, link, token: token, password: password, client: client, context: context)
            }
        }
    }

    static let invalidLink = "Open the link from the mail as it is; if it still fails, ask for a new mail."

    static func complete(_ site: ConsoleSite, _ link: AuthService.AccountLink, token: String, password: String?,
                         client: ClientInfo, context: RequestContext) -> HTTPResponse {
        do {
            let user = try site.auth.completeAccountLink(link, token: token, password: password, client: client)
            let message = link.choosesPassword
                ? "Your password is set. Open the Dispatch app and sign in as \(user.email)."
                : "Your e-mail address is now \(user.email). Sign in with it from now on."
            var data: [String: Any] = ["heading": link.choosesPassword ? "Password set" : "E-mail address changed",
                                       "done": true, "message": message]
            if let app = site.auth.emailSettings.redirects.allowed.first(where: isAppLink) { data["appLink"] = app }
            return site.renderer.response(ConsolePage(title: data["heading"] as? String ?? "Done", section: "", template: "account",
                                                      data: data), viewer: nil, headers: privateHeaders)
        } catch let error as DomainError where error.code == .validationFailed {
            return form(site, link, token: token, error: error.fields.first?.message ?? error.message, status: .unprocessableContent)
        } catch let error as DomainError where error.code == AuthService.emailCodeInvalid.code {
            return spent(site, link)
        } catch {
            return site.errorPage(for: error, context: context)
        }
    }

    static func spent(_ site: ConsoleSite, _ link: AuthService.AccountLink) -> HTTPResponse {
        let next = switch link {
        case .invite: "Ask your office for a new invitation."
        case .recovery: "Ask for a new password reset from the app's sign-in screen."
        case .emailChange: "Change the address again from the app to get a new mail."
        }
        return page(site, heading: "This link has been used or has expired", error: next, status: .forbidden)
    }

    static func form(_ site: ConsoleSite, _ link: AuthService.AccountLink, token: String, error: String?, status: HTTPStatus) -> HTTPResponse {
        let heading = switch link {
        case .invite: "Welcome to Dispatch: choose your password"
        case .recovery: "Choose a new password"
        case .emailChange: "Confirm your new e-mail address"
        }
        var data: [String: Any] = ["heading": heading, "form": true, "token": token, "type": link.rawValue,
                                   "choosesPassword": link.choosesPassword,
                                   "button": link.choosesPassword ? "Set password" : "Confirm the new address"]
        if let error { data["error"] = error }
        return site.renderer.response(ConsolePage(title: heading, section: "", template: "account", data: data, status: status),
                                      viewer: nil, headers: privateHeaders)
    }

    static func page(_ site: ConsoleSite, heading: String, error: String, status: HTTPStatus) -> HTTPResponse {
        site.renderer.response(ConsolePage(title: heading, section: "", template: "account",
                                           data: ["heading": heading, "error": error], status: status),
                               viewer: nil, headers: privateHeaders)
    }

    /// The page's URL holds the link's token: never sent on as a Referer.
    static var privateHeaders: HTTPHeaders { ["Referrer-Policy": "no-referrer"] }

    /// An app's own link (a custom scheme such as `com.example.dispatch://login`), not a web page.
    static func isAppLink(_ url: String) -> Bool {
        guard let scheme = URLComponents(string: url)?.scheme?.lowercased() else { return false }
        return scheme != "http" && scheme != "https"
    }
}
