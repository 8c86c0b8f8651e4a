import Domain
import Foundation

/// Which targets a webhook may reach: `http`/`https` URLs only, and connections only to
/// public addresses (`AddressClassifier`), judged on the address the connection is about to
/// use — so a name that resolves to a private address, or re-resolves to one later (DNS
/// rebinding), is refused too. WEBHOOK_ALLOWED_HOSTS lets an operator allow named hosts (any
/// address they resolve to) or CIDR ranges back, e.g. an integration on the internal network.
package struct WebhookTargetPolicy: Sendable {
    package var allowedHosts: Set<String>
    package var allowedRanges: [AddressRange]
    /// WEBHOOK_ONLY_ALLOWED_HOSTS: an egress allow-list. Webhooks reach nothing but the allowed
    /// hosts and ranges, public addresses included, and a URL naming anything else is refused
    /// before its name is even looked up.
    package var onlyAllowed = false

    package init(allowedHosts: Set<String> = [], allowedRanges: [AddressRange] = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedRanges = allowedRanges
    }

    /// Parses WEBHOOK_ALLOWED_HOSTS: comma-separated host names, addresses or CIDR ranges.
    package init(parsing text: String) throws(WebhookSettingError) {
        var hosts: Set<String> = []
        var ranges: [AddressRange] = []
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            if let range = AddressRange(parsing: entry) {
                ranges.append(range)
            } else if entry.contains("/") || !entry.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) {
                throw WebhookSettingError("not a host name, address or CIDR range: \(entry)")
            } else {
                hosts.insert(entry.lowercased())
            }
        }
        self.init(allowedHosts: hosts, allowedRanges: ranges)
    }

    /// Refusal of the URL's text (nil: acceptable): scheme and a host are needed.
    package static func urlProblem(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else { return "Must be an http or https URL." }
        guard let host = components.host, !host.isEmpty else { return "Must name a host." }
        guard components.user == nil, components.password == nil else { return "Must not carry credentials." }
        return nil
    }

    /// Whether a connection for `host` (the URL's) may go to `address` (the resolved one).
    package func permits(host: String, address: NetworkAddress) -> Verdict {
        if allowedHosts.contains(host.lowercased()) { return .allowed }
        if allowedRanges.contains(where: { $0.contains(address) }) { return .allowed }
        if onlyAllowed { return .refused("not in WEBHOOK_ALLOWED_HOSTS") }
        return AddressClassifier.classify(address)
    }

    /// Refusal of the URL's host before any lookup (nil: go on): with `onlyAllowed`, a host
    /// that is neither an allowed name nor an address in an allowed range.
    package func hostProblem(_ host: String) -> String? {
        guard onlyAllowed, !allowedHosts.contains(host.lowercased()) else { return nil }
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let address = NetworkAddress(literal), allowedRanges.contains(where: { $0.contains(address) }) { return nil }
        return "The host is not in WEBHOOK_ALLOWED_HOSTS."
    }

    package typealias Verdict = AddressClassifier.Verdict
}

/// A malformed webhook setting (the configuration reports it with the variable's name).
package struct WebhookSettingError: Error, Sendable {
    package let message: String
    package init(_ message: String) { self.message = message }
}
