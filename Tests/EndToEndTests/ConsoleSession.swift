import Foundation

/// A browser's view of the console for the Swift tests: a cookie jar over `AuthTestServer`'s
/// client, form posts as a browser sends them, and the CSRF token read from the last page.
final class ConsoleSession {
    let app: AuthTestServer
    var cookies: [String: String] = [:]
    /// The `csrf` hidden field of the last page fetched.
    var csrf = ""

    init(_ app: AuthTestServer) {
        self.app = app
    }

    @discardableResult
    func get(_ path: String) throws -> TestHTTPClient.Response {
        let response = try app.request("GET", path, headers: cookieHeader)
        keep(response)
        return response
    }

    @discardableResult
    func post(_ path: String, _ fields: [String: String], csrf send: Bool = true) throws -> TestHTTPClient.Response {
        var fields = fields
        if send { fields["csrf"] = csrf }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.sorted { $0.key < $1.key }.map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        var headers = cookieHeader
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        let response = try app.request("POST", path, body: Array(body.utf8), headers: headers)
        keep(response)
        return response
    }

    /// Signs in through the form; the response of the POST.
    @discardableResult
    func signIn(_ email: String = AuthTestServer.adminEmail, _ password: String = AuthTestServer.password) throws -> TestHTTPClient.Response {
        try get("/console/sign-in")
        return try post("/console/sign-in", ["email": email, "password": password])
    }

    var cookieHeader: [String: String] {
        cookies.isEmpty ? [:] : ["Cookie": cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")]
    }

    private func keep(_ response: TestHTTPClient.Response) {
        for header in response.headers where header.name.lowercased() == "set-cookie" {
            let pair = header.value.split(separator: ";")[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]), value = String(pair[pair.index(after: equals)...])
            if value.isEmpty || header.value.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        let html = String(decoding: response.body, as: UTF8.self)
        if let range = html.range(of: #"name="csrf" value="([^"]*)""#, options: .regularExpression) {
            csrf = String(html[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
        }
    }

    static func text(_ response: TestHTTPClient.Response) -> String { String(decoding: response.body, as: UTF8.self) }
}
