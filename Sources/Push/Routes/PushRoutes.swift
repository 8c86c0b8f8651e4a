import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// `/v1/devices`: a signed-in session registers the phone it runs on for silent pushes, lists
/// its user's devices and removes one. A device belongs to the session that registered it
/// (its sign-out removes it), so an API key, which has no session, may not register one.
package enum PushRoutes {
    package static func register(on router: inout Router, push: PushService) {
        router.post("/v1/devices") { request, context in
            let principal = try AuthService.principal(context)
            var body = try JSONRequestBody(request, allowed: ["platform", "token", "app_id"])
            let platformText = body.string("platform", required: true)
            let platform = platformText.flatMap(PushDevice.Platform.init(rawValue:))
            let token = body.string("token", required: true)
            let appID = body.string("app_id", required: true)
            PushDeviceRules.problems(platform: platformText, token: token, appID: appID).forEach { body.add($0) }
            try body.finish()
            guard let platform, let token, let appID else { throw JSONRequestBody.validationFailed(body.errors) }
            guard let session = principal.sessionID else {
                throw AuthService.sessionRequired("A device is registered by the signed-in session running on it, not an API key.")
            }
            let device = try push.register(user: principal.userID, session: session, platform: platform, token: token, appID: appID)
            return .response(try .json(device.json()))
        }
        router.get("/v1/devices") { _, context in
            let principal = try AuthService.principal(context)
            return .response(try .json(["items": JSONValue.array(try push.list(user: principal.userID).map { $0.json() })]))
        }
        router.delete("/v1/devices/{id}") { _, context in
            let principal = try AuthService.principal(context)
            guard let id = UUID(uuidString: try context.pathParameter("id")) else { throw DomainError.notFound("device") }
            try push.remove(user: principal.userID, id: id)
            return .response(HTTPResponse(status: .noContent))
        }
    }
}
