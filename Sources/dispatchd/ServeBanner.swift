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

    static func text(url: String, firstAdmin: AdminAccount.Created?) -> String {
        var lines = ["Dispatch server listening on \(url)"]
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
