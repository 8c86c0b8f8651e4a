import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// `/rest/v1/push_devices` for the supabase clients: the caller's own device registrations
/// (docs/app-developers/notifications.md), the same rows and rules as `/v1/devices`.
///
/// - GET lists the caller's devices; the only filter is `id=eq.<uuid>` (`select=*` or none).
/// - POST upserts on the token (`supabase.from("push_devices").upsert(row, onConflict: "token")`):
///   one object or an array of `{platform, token, app_id}`; a token registered by someone else
///   moves to the caller. Registered by a sign-in session only, as on `/v1`.
/// - DELETE removes the caller's device named by `id=eq.<uuid>`; without it, 400 `21000`.
/// `Prefer: return=representation` answers the rows written, else no body.
enum RestPushDeviceRoutes {
    static let table = "push_devices"
    static let columns: Set<String> = ["platform", "token", "app_id"]

    static func register(on router: inout Router, auth: AuthService) {
        let store = PushDeviceStore(pool: auth.pool)
        router.get("/rest/v1/push_devices") { _, context in
            let principal = try AuthService.principal(context)
            let id = try filter(context.query)
            let rows = try store.list(user: principal.userID).filter { id == nil || $0.id == id }
            return .response(HTTPResponse(status: .ok, headers: ["Content-Type": RestReadRoutes.jsonType], body: array(rows)))
        }
        router.post("/rest/v1/push_devices") { request, context in
            let principal = try AuthService.principal(context)
            let records = try records(request)
            var registrations: [(PushDevice.Platform, String, String)] = []
            for record in records {
                if let unknown = record.keys.sorted().first(where: { !columns.contains($0) }) {
                    throw RestWriteErrors.unknownColumn(table, unknown)
                }
                let text = { (key: String) -> String? in if case .string(let value)? = record[key] { value } else { nil } }
                var errors = PushDeviceRules.problems(platform: text("platform"), token: text("token"), appID: text("app_id"))
                for key in columns.sorted() where text(key) == nil {
                    errors.append(FieldError(field: key, code: .required, message: "Must be a string."))
                }
                guard errors.isEmpty, let platform = text("platform").flatMap(PushDevice.Platform.init(rawValue:)),
                      let token = text("token"), let appID = text("app_id")
                else { throw DomainError.validation(errors) }
                registrations.append((platform, token, appID))
            }
            guard let session = principal.sessionID else {
                throw AuthService.sessionRequired("A device is registered by the signed-in session running on it, not an API key.")
            }
            let rows = try registrations.map {
                try store.register(user: principal.userID, session: session, platform: $0.0, token: $0.1, appID: $0.2)
            }
            return .response(answer(.created, rows, request))
        }
        router.delete("/rest/v1/push_devices") { request, context in
            let principal = try AuthService.principal(context)
            guard let id = try filter(context.query) else { throw RestWriteErrors.missingFilter("DELETE") }
            let rows = try store.list(user: principal.userID).filter { $0.id == id }
            if !rows.isEmpty { _ = try store.delete(user: principal.userID, id: id) }
            return .response(answer(.noContent, rows, request))
        }
    }

    /// The body: one object or an array of objects, checked as every `/rest/v1` write is.
    static func records(_ request: HTTPRequest) throws -> [[String: JSONValue]] {
        guard request.body.count <= JSONRequestBody.maxBytes else {
            throw DomainError(.contentTooLarge, .bodyTooLarge, "JSON request bodies are limited to \(JSONRequestBody.maxBytes) bytes.")
        }
        try JSONRequestBody.checkContentType(request.headers["Content-Type"])
        do {
            try StrictJSON.check(request.body)
        } catch {
            throw JSONRequestBody.domainError(error)
        }
        switch try? JSONDecoder().decode(JSONValue.self, from: Data(request.body)) {
        case .object(let object)?:
            return [object]
        case .array(let items)?:
            return try items.map {
                guard case .object(let object) = $0 else { throw RestWriteErrors.invalidBody("Every element of the array must be a JSON object.") }
                return object
            }
        default:
            throw RestWriteErrors.invalidBody("The request body must be a JSON object or an array of objects.")
        }
    }

    /// `id=eq.<uuid>`, the one filter this table takes; nil when absent.
    static func filter(_ query: QueryParameters) throws -> UUID? {
        var id: UUID?
        for item in query where item.name != "select" || item.value != "*" {
            guard item.name == "id", item.value.hasPrefix("eq.") else {
                throw RestError.badQuery("push_devices takes only the filter id=eq.<uuid>",
                                         details: "unexpected \"\(item.name)\"")
            }
            guard let value = UUID(uuidString: String(item.value.dropFirst(3))) else {
                throw RestError.invalidValue("uuid", String(item.value.dropFirst(3)))
            }
            id = value
        }
        return id
    }

    static func answer(_ status: HTTPStatus, _ rows: [PushDevice], _ request: HTTPRequest) -> HTTPResponse {
        guard RestWritePreferences(request.headers.values(for: "Prefer")).returning == .representation else {
            return HTTPResponse(status: status)
        }
        return HTTPResponse(status: status == .noContent ? .ok : status, headers: ["Content-Type": RestReadRoutes.jsonType],
                            body: array(rows))
    }

    static func array(_ rows: [PushDevice]) -> [UInt8] {
        let values = rows.map { $0.json(withUser: true) }
        return Array((try? JSONEncoder().encode(JSONValue.array(values))) ?? Data("[]".utf8))
    }
}
