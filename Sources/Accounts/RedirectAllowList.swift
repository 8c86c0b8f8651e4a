import Mail
import RouteKit

/// Where a mail link may send the browser after verification (AUTH_REDIRECT_URLS, default
/// PUBLIC_URL). A `redirect_to` is accepted when it is an allowed entry or lies under one:
/// the entry followed by `/`, `?` or `#` (or the entry already ends in `/`). So
/// `https://app.example.com` admits `https://app.example.com/welcome` but neither
/// `https://app.example.com.evil.net` nor `https://app.example.com@evil.net`. Anything else,
/// and anything with whitespace or control characters, falls back to the first entry, as
/// GoTrue falls back to its site URL: an open redirect is never possible.
package struct RedirectAllowList: Sendable {
    /// PUBLIC_URL and AUTH_REDIRECT_URLS as the mail layer resolves them (the listener's URL
    /// when PUBLIC_URL is unset, known once the port is bound).
    package let links: PublicLinks

    package init(links: PublicLinks) {
        self.links = links
    }

    package init(publicURL: String, allowed: [String] = []) {
        self.init(links: PublicLinks(baseURL: publicURL, redirectURLs: allowed.isEmpty ? nil : allowed))
    }

    /// The base URL of links in mail (never the request's Host header), without a trailing `/`.
    package var publicURL: String { links.baseURL }
    /// The allowed targets; the first is the fallback.
    package var allowed: [String] { links.redirectURLs.isEmpty ? [publicURL] : links.redirectURLs }

    /// `candidate` when it is allowed, else the default target.
    package func resolve(_ candidate: String?) -> String {
        guard let candidate, isAllowed(candidate) else { return allowed[0] }
        return candidate
    }

    package func isAllowed(_ candidate: String) -> Bool {
        guard !candidate.isEmpty, candidate.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else { return false }
        return allowed.contains { entry in
            guard candidate.hasPrefix(entry) else { return false }
            if candidate.count == entry.count || entry.hasSuffix("/") { return true }
            let next = candidate[candidate.index(candidate.startIndex, offsetBy: entry.count)]
            return next == "/" || next == "?" || next == "#"
        }
    }

    /// Whether `target` is the server itself (PUBLIC_URL), not an app: nothing there takes a
    /// session from a fragment, so a link should land on the account pages instead.
    package func isServerItself(_ target: String) -> Bool {
        target == publicURL || target == publicURL + "/"
    }

    /// The link a mail carries: `GET /auth/v1/verify` on PUBLIC_URL with GoTrue's parameters.
    package func verifyLink(token: String, type: String, redirectTo: String) -> String {
        publicURL + "/auth/v1/verify?" + FormEncoding.encode([("token", token), ("type", type), ("redirect_to", redirectTo)])
    }
}
