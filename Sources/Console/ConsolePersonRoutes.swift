import API
import Accounts
import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// `/console/people/{id}`: one person, with what an administrator does to an account — change
/// the role, deactivate or reactivate, reset the password, revoke a session or an API key.
/// Each runs the API's store code (`PATCH /v1/users/{id}`'s update and self-lockout rule, the
/// revocation set) and writes an audit row.
enum ConsolePersonRoutes {
    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/people/{id}") { request, context in
            try site.page(request, context) { viewer in
                let user = try person(context, site)
                return ConsolePage(title: user.name, section: "/console/people", template: "person",
                                   data: try data(user, viewer: viewer, site))
            }
        }
        router.post("/console/people/{id}/role") { request, context in
            try site.action(request, context) { viewer, form in
                guard let role = form["role"].flatMap(UserType.init(rawValue:)) else { throw ConsoleError.invalid("Role must be admin or realtor.") }
                let user = try update(context, site, viewer, .init(userType: role))
                try site.record(viewer, action: "person.role", targetType: "user", targetID: id(user),
                                summary: "\(user.email) is now \(role.rawValue)")
                return .redirect("/console/people/\(id(user))?done=role")
            }
        }
        for (path, deactivate) in [("deactivate", true), ("reactivate", false)] {
            router.post("/console/people/{id}/\(path)") { request, context in
                try site.action(request, context) { viewer, _ in
                    let user = try update(context, site, viewer, .init(deactivated: deactivate))
                    try site.record(viewer, action: "person.\(path)", targetType: "user", targetID: id(user),
                                    summary: "\(deactivate ? "Deactivated" : "Reactivated") \(user.email)")
                    return .redirect("/console/people/\(id(user))?done=\(path)d")
                }
            }
        }
        router.post("/console/people/{id}/reset-password") { request, context in
            let viewer = try site.viewer(request)
            let form = try ConsoleForm(request)
            try form.requireCSRF(viewer.csrfToken)
            let user = try person(context, site)
            return site.auth.passwordWork.respond(context) {
                do {
                    return site.respond(try resetPassword(user, by: viewer, site), viewer: viewer)
                } catch {
                    return site.errorPage(for: error, context: context)
                }
            }
        }
        router.post("/console/people/{id}/sessions/{session}/revoke") { request, context in
            try site.action(request, context) { viewer, _ in
                let user = try person(context, site)
                guard let session = UUID(uuidString: try context.pathParameter("session")),
                      try site.auth.endSession(session, of: user.id, reason: .admin)
                else { throw ConsoleError.notFound("That session (it may have been revoked already)") }
                try site.record(viewer, action: "session.revoke", targetType: "session", targetID: session.uuidString.lowercased(),
                                summary: "Revoked a session of \(user.email)")
                return .redirect("/console/people/\(id(user))?done=session-revoked")
            }
        }
        router.post("/console/people/{id}/api-keys/{key}/revoke") { request, context in
            try site.action(request, context) { viewer, _ in
                let user = try person(context, site)
                guard let key = UUID(uuidString: try context.pathParameter("key")),
                      try site.auth.apiKeys.revoke(id: key, userID: user.id)
                else { throw ConsoleError.notFound("That API key (it may have been revoked already)") }
                try site.record(viewer, action: "api-key.revoke", targetType: "api_key", targetID: key.uuidString.lowercased(),
                                summary: "Revoked an API key of \(user.email)")
                return .redirect("/console/people/\(id(user))?done=key-revoked")
            }
        }
    }

    static func id(_ user: User) -> String { user.id.uuidString.lowercased() }

    static func person(_ context: RequestContext, _ site: ConsoleSite) throws -> User {
        guard let id = UUID(uuidString: try context.pathParameter("id")), let user = try site.auth.users.find(id: id) else {
            throw ConsoleError.notFound("That person")
        }
        return user
    }

    /// `PATCH /v1/users/{id}`'s path: the self-lockout rule, the store update, and the
    /// revocation of the sessions a deactivation ended.
    static func update(_ context: RequestContext, _ site: ConsoleSite, _ viewer: ConsoleViewer,
                       _ changes: UserStore.Changes) throws -> User {
        let user = try person(context, site)
        let problems = UserRules.selfLockout(target: user.id, admin: viewer.user.id, userType: changes.userType,
                                               deactivated: changes.deactivated)
        if let problem = problems.first { throw ConsoleError.invalid(problem.message + " Another administrator has to do it.") }
        guard let updated = try site.auth.updateUser(id: user.id, changes: changes) else { throw ConsoleError.notFound("That person") }
        return updated
    }

    /// A new random password, shown once; every session of the person is signed out (as a
    /// password change does), so whoever knew the old password is out.
    static func resetPassword(_ user: User, by viewer: ConsoleViewer, _ site: ConsoleSite) throws -> ConsoleOutcome {
        let password = try SecureRandom.token(byteCount: 12)
        try site.auth.users.setPasswordHash(userID: user.id, hash: try site.auth.hasher.hash(password))
        let revoked = try site.auth.endSessions(of: user.id, except: nil, reason: .passwordChanged)
        try site.record(viewer, action: "person.reset-password", targetType: "user", targetID: id(user),
                        summary: "Reset the password of \(user.email); \(revoked.count) sessions signed out")
        return .page(ConsolePage(title: "Password reset", section: "/console/people", template: "password-once", data: [
            "heading": "New password for \(user.name)", "email": user.email, "password": password,
            "person": "/console/people/\(id(user))",
        ]))
    }

    static func data(_ user: User, viewer: ConsoleViewer, _ site: ConsoleSite) throws -> [String: Any] {
        let sessions = try site.auth.sessions.list(userID: user.id)
        let keys = try site.auth.apiKeys.list(userID: user.id)
        return [
            "id": id(user), "personID": id(user), "name": user.name, "email": user.email, "role": user.userType.rawValue,
            "isAdmin": user.isAdmin, "active": user.isActive, "isSelf": user.id == viewer.user.id,
            "created": ConsoleFormat.time(user.createdAt), "deactivatedAt": ConsoleFormat.time(user.deactivatedAt),
            "sessions": sessions.map { session in
                [
                    "id": session.id.uuidString.lowercased(), "device": ConsoleDevice.describe(session.userAgent),
                    "address": session.clientAddress ?? "—", "created": ConsoleFormat.time(session.createdAt),
                    "lastUsed": ConsoleFormat.time(session.lastUsedAt), "current": session.id == viewer.sessionID,
                ] as [String: Any]
            },
            "hasSessions": !sessions.isEmpty,
            "keys": keys.map { key in
                ["id": key.id.uuidString.lowercased(), "name": key.name, "prefix": key.prefix,
                 "created": ConsoleFormat.time(key.createdAt), "lastUsed": ConsoleFormat.time(key.lastUsedAt),
                 "expires": key.expiresAt.map(ConsoleFormat.time) ?? "never"]
            },
            "hasKeys": !keys.isEmpty,
            "slack": try ConsoleSlack.person(user.id, site: site) as Any,
        ].merging(try ConsoleWakeUps.data(userID: user.id, site: site)) { $1 }
            .merging(ConsoleFailures.data(userID: user.id, site: site)) { $1 }
    }
}
