/// What `serve` prints on standard output once it listens: where to reach it and, on the
/// first embedded start, the generated admin credentials (shown once, never logged).
enum ServeBanner {
    static func url(host: String, port: Int) -> String {
        let shown = switch host {
        case "0.0.0.0", "::", "": "127.0.0.1"
        default: host
        }
        return shown.contains(":") ? "http://[\(shown)]:\(port)" : "http://\(shown):\(port)"
    }

    /// `publishableKey` is public (apps embed it), so it is shown on every start.
    static func text(url: String, firstAdmin: AdminAccount.Created?, publishableKey: String? = nil) -> String {
        var lines = ["Dispatch server listening on \(url)"]
        if let publishableKey {
            lines.append("Supabase-compatible API: \(url) with publishable key \(publishableKey)")
        }
        lines.append("Console: \(url)/console (sign in with an administrator's email and password)")
        if let firstAdmin, let password = firstAdmin.generatedPassword {
            lines += [
                "",
                "First administrator created (the password is shown only this once):",
                "  email:    \(firstAdmin.email)",
                "  password: \(password)",
            ]
        }
        return lines.joined(separator: "\n")
    }
}
