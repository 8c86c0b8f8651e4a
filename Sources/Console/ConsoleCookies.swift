import HTTP1

/// The console's two cookies. Both are HttpOnly (no script reads them), SameSite=Strict (no
/// other site's page sends them, the first defence against CSRF), scoped to /console, and
/// Secure when the server's public URL is https.
struct ConsoleCookies: Sendable {
    /// The signed-in session's token (its SHA-256 is in `console_sessions`).
    static let session = "dispatch_console"
    /// Before sign-in: the secret the sign-in form echoes (double-submit), so a foreign page
    /// cannot sign a browser into an account of the attacker's choosing.
    static let signIn = "dispatch_console_signin"
    static let path = "/console"

    let secure: Bool

    /// `name=value` pairs of the request's Cookie headers (RFC 6265 §5.4); the first wins.
    static func values(_ request: HTTPRequest) -> [String: String] {
        var values: [String: String] = [:]
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingASCIIWhitespace()
                let value = pair[pair.index(after: equals)...].trimmingASCIIWhitespace()
                if values[String(name)] == nil { values[String(name)] = String(value) }
            }
        }
        return values
    }

    func set(_ name: String, _ value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=\(Self.path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    func clear(_ name: String) -> String { set(name, "", maxAge: 0) }
}
