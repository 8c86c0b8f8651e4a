import Foundation

/// Raw-HTTP calls to `/auth/v1` as supabase-swift puts them on the wire: `Apikey` (that
/// capitalisation), `Authorization: Bearer <publishable key>` unless signed in, JSON content
/// type on every request, and the API-version header.
struct SupabaseAuthClient {
    let app: AuthTestServer

    func call(_ method: String, _ path: String, token: String? = nil, json: [String: Any]? = nil,
              apikey: String? = AuthTestServer.publishableKey, extraHeaders: [String: String] = [:]) throws -> TestHTTPClient.Response {
        var headers = ["X-Client-Info": "supabase-swift/2.0.0", "X-Supabase-Api-Version": "2024-01-01",
                       "Content-Type": "application/json"]
        if let apikey { headers["Apikey"] = apikey }
        headers["Authorization"] = "Bearer \(token ?? AuthTestServer.publishableKey)"
        headers.merge(extraHeaders) { _, new in new }
        let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        return try app.client.perform(method: method, path: path, headers: headers, body: body)
    }

    struct Session {
        var access: String
        var refresh: String
        var json: [String: Any]
    }

    func signIn(_ email: String = AuthTestServer.adminEmail, _ password: String = AuthTestServer.password) throws -> Session {
        try session(call("POST", "/auth/v1/token?grant_type=password", json: ["email": email, "password": password]))
    }

    func refresh(_ token: String) throws -> TestHTTPClient.Response {
        try call("POST", "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": token])
    }

    func session(_ response: TestHTTPClient.Response) throws -> Session {
        guard response.status == 200, let json = response.json, let access = json["access_token"] as? String,
              let refresh = json["refresh_token"] as? String
        else { throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self)) }
        return Session(access: access, refresh: refresh, json: json)
    }
}

extension TestHTTPClient.Response {
    /// The GoTrue error code, after checking the shape every `/auth/v1` error must have.
    var goTrueCode: String? {
        guard header("X-Supabase-Api-Version") == "2024-01-01", let json, json["message"] is String else { return nil }
        return json["code"] as? String
    }
}
