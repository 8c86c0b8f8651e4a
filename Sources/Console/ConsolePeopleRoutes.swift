import API
import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// `/console/people`: who has an account, found by name or email, a page at a time (keyset on
/// name then id), and a form to add someone, one of two ways:
/// - an e-mail invitation (`how=invite`): `AuthService.invite`, the operation behind
///   `POST /v1/invitations` and `/auth/v1/invite` (same mail limits, mail queued in the outbox
///   with its token in one transaction); the person sets their own password;
/// - a password now (`how=password`, also when `how` is absent, as before invitations): the
///   API's own checks and store call (`POST /v1/users`), the same KDF pool.
enum ConsolePeopleRoutes {
    static let pageSize = 25

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/people") { request, context in
            try site.page(request, context) { _ in
                let query = context.query["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
                var after: UserStore.SearchPosition?
                if let cursor = context.query["after"] {
                    guard let id = UUID(uuidString: cursor), let user = try site.auth.users.find(id: id) else {
                        throw ConsoleError.invalid("That page link is no longer valid; start from the first page.")
                    }
                    after = UserStore.SearchPosition(name: user.name.lowercased(), id: user.id)
                }
                let (users, more) = try site.auth.users.search(query, after: after, limit: pageSize)
                var data: [String: Any] = ["q": query, "people": users.map(row), "none": users.isEmpty]
                if more, let last = users.last { data["next"] = link(query, after: last.id) }
                if after != nil { data["first"] = link(query, after: nil) }
                return ConsolePage(title: "People", section: "/console/people", template: "people", data: data)
            }
        }
        router.post("/console/people") { request, context in
            let viewer = try site.viewer(request)
            let form = try ConsoleForm(request)
            try form.requireCSRF(viewer.csrfToken)
            let input = try NewPerson(form)
            if input.invite {
                return .response(site.respond(try invite(input, by: viewer, site), viewer: viewer))
            }
            // Hashing runs on the KDF pool like every password operation; the work renders its own errors.
            return site.auth.passwordWork.respond(context) {
                do {
                    return site.respond(try create(input, by: viewer, site), viewer: viewer)
                } catch {
                    return site.errorPage(for: error, context: context)
                }
            }
        }
    }

    struct NewPerson: Sendable {
        var email: String
        var name: String
        var type: UserType
        /// Nil: the console generates one and shows it once (or none, for an invitation).
        var password: String?
        /// Mail an invitation instead of setting a password.
        var invite: Bool

        init(_ form: ConsoleForm) throws {
            var errors: [FieldError] = []
            let email = UserRules.checkEmail(try form.required("email", label: "Email"), errors: &errors)
            let name = UserRules.checkName(try form.required("name", label: "Name"), errors: &errors)
            if let password = form.fields["password"], !password.isEmpty, let problem = UserRules.checkPassword(password) {
                errors.append(problem)
            }
            guard let type = UserType(rawValue: form["role"] ?? "realtor") else { throw ConsoleError.invalid("Role must be admin or realtor.") }
            switch form["how"] ?? "password" {
            case "invite": invite = true
            case "password": invite = false
            default: throw ConsoleError.invalid("Choose an e-mail invitation or a password.")
            }
            // Refused rather than ignored: an admin who typed a password expects it to work.
            if invite, let password = form.fields["password"], !password.isEmpty {
                throw ConsoleError.invalid("An invitation lets the person choose their own password; leave the password empty.")
            }
            guard errors.isEmpty, let email, let name else {
                throw ConsoleError.invalid(errors.map { "\($0.field): \($0.message)" }.joined(separator: " "))
            }
            self.email = email
            self.name = name
            self.type = type
            password = form.fields["password"].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    static func create(_ input: NewPerson, by viewer: ConsoleViewer, _ site: ConsoleSite) throws -> ConsoleOutcome {
        let generated = input.password == nil ? try SecureRandom.token(byteCount: 12) : nil
        let password = input.password ?? generated ?? ""
        let user = try site.auth.users.create(email: input.email, name: input.name, userType: input.type,
                                              passwordHash: try site.auth.hasher.hash(password))
        try site.record(viewer, action: "person.create", targetType: "user", targetID: user.id.uuidString.lowercased(),
                        summary: "Created \(user.email) as \(user.userType.rawValue)")
        guard let generated else { return .redirect("/console/people/\(user.id.uuidString.lowercased())?done=created") }
        return .page(ConsolePage(title: "Person created", section: "/console/people", template: "password-once", data: [
            "heading": "\(user.name) can now sign in", "email": user.email, "password": generated,
            "person": "/console/people/\(user.id.uuidString.lowercased())",
        ]))
    }

    static func invite(_ input: NewPerson, by viewer: ConsoleViewer, _ site: ConsoleSite) throws -> ConsoleOutcome {
        let user = try site.auth.invite(email: input.email, name: input.name, userType: input.type)
        try site.record(viewer, action: "person.invite", targetType: "user", targetID: user.id.uuidString.lowercased(),
                        summary: "Invited \(user.email) as \(user.userType.rawValue) by e-mail")
        return .redirect("/console/people/\(user.id.uuidString.lowercased())?done=invited")
    }

    static func link(_ query: String, after: UUID?) -> String {
        var components = URLComponents()
        components.path = "/console/people"
        var items: [URLQueryItem] = []
        if let after { items.append(URLQueryItem(name: "after", value: after.uuidString.lowercased())) }
        if !query.isEmpty { items.append(URLQueryItem(name: "q", value: query)) }
        components.queryItems = items.isEmpty ? nil : items
        return components.string ?? "/console/people"
    }

    static func row(_ user: User) -> [String: Any] {
        ["id": user.id.uuidString.lowercased(), "name": user.name, "email": user.email, "role": user.userType.rawValue,
         "active": user.isActive]
    }
}
