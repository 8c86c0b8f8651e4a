import API
import Accounts
import Credentials
import Foundation
import HTTP1
import HTTPServer
import RouteKit

/// `/console/sign-in` and `/console/sign-out`. Sign-in runs the API's own sign-in
/// (`AuthService.startSession`: the same throttle, the same KDF pool, a session listed with
/// the person's devices); a realtor's fresh session is revoked at once and they see a refusal.
enum ConsoleSignInRoutes {
    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/sign-in") { request, _ in
            if (try? site.viewer(request)) != nil { return .response(site.redirect(ConsoleNav.home)) }
            let secret = try SecureRandom.token()
            let cookie = site.cookies.set(ConsoleCookies.signIn, secret, maxAge: 3600)
            return .response(form(site, secret: secret, email: "", error: nil, status: .ok, cookie: cookie))
        }
        router.post("/console/sign-in") { request, context in
            let form = try ConsoleForm(request)
            try form.requireCSRF(ConsoleCookies.values(request)[ConsoleCookies.signIn] ?? "")
            let email = form["email"] ?? ""
            let password = form.fields["password"] ?? ""
            let secret = form.fields[ConsoleForm.csrfField] ?? ""
            return site.auth.passwordWork.respond(context) {
                signIn(site, email: email, password: password, secret: secret, request, context)
            }
        }
        router.post("/console/sign-out") { request, context in
            try site.action(request, context) { viewer, _ in
                try site.auth.endSession(viewer.sessionID, reason: .logout)
                try site.record(viewer, action: "console.sign-out", targetType: "session",
                                targetID: viewer.sessionID.uuidString.lowercased(), summary: "Signed out of the console")
                return .redirect("/console/sign-in")
            }
        }
    }

    /// Runs on the KDF pool; answers every outcome as a page itself (deferred replies bypass
    /// the middleware's error rendering).
    static func signIn(_ site: ConsoleSite, email: String, password: String, secret: String,
                       _ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        do {
            let (user, sessionID, deviceCookie) = try site.auth.startSession(email: email, password: password,
                                                                             client: ClientInfo(request, context))
            let device = "\(ConsoleDevice.describe(request.headers["User-Agent"])) at \(context.clientAddress)"
            guard user.isAdmin else {
                try site.auth.endSession(sessionID, reason: .logout)
                try site.audit.record(actorID: user.id, actorEmail: user.email, action: "console.refused", targetType: "session",
                                      targetID: sessionID.uuidString.lowercased(), summary: "A realtor was refused the console (\(device))")
                let refusal = ConsoleError.notAdmin(name: user.name)
                return site.renderer.response(ConsoleSite.message(refusal.title, refusal.message, status: refusal.status,
                                                                        back: "/console/sign-in"), viewer: nil)
            }
            let token = try SecureRandom.token()
            try site.sessions.create(tokenHash: SHA256.hex(token), sessionID: sessionID, csrfToken: try SecureRandom.token(),
                                     expiresAt: Date().addingTimeInterval(ConsoleSite.sessionLifetime))
            try site.audit.record(actorID: user.id, actorEmail: user.email, action: "console.sign-in", targetType: "session",
                                  targetID: sessionID.uuidString.lowercased(), summary: "Signed in to the console (\(device))")
            // The device cookie keeps this browser known to the sign-in throttle (API's DeviceCookie).
            return site.redirect(ConsoleNav.home, setCookies: [
                site.cookies.set(ConsoleCookies.session, token, maxAge: Int(ConsoleSite.sessionLifetime)),
                site.cookies.clear(ConsoleCookies.signIn),
            ] + (deviceCookie.map { [$0] } ?? []))
        } catch let error as HTTPError where error.status == .tooManyRequests || error.status == .unauthorized {
            return form(site, secret: secret, email: email, error: error.message, status: error.status, cookie: nil)
        } catch {
            let (status, message) = APIErrorRenderer.statusAndMessage(for: error, logger: context.logger)
            return form(site, secret: secret, email: email, error: message, status: status, cookie: nil)
        }
    }

    static func form(_ site: ConsoleSite, secret: String, email: String, error: String?, status: HTTPStatus,
                     cookie: String?) -> HTTPResponse {
        var data: [String: Any] = ["csrf": secret, "email": email]
        if let error { data["error"] = error }
        var headers = HTTPHeaders()
        if let cookie { headers.add(name: "Set-Cookie", value: cookie) }
        return site.renderer.response(ConsolePage(title: "Sign in", section: "", template: "sign-in", data: data, status: status),
                                      viewer: nil, headers: headers)
    }
}
