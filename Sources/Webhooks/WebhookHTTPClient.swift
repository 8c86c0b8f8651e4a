import Domain
import Foundation
import OutboundHTTP

/// POSTs one webhook: the URL and its host judged by `WebhookTargetPolicy` before any lookup,
/// then `HTTPPoster` with the policy as its connect guard, so every resolved address is judged
/// too, on the address actually used.
package struct WebhookHTTPClient: Sendable {
    package var policy: WebhookTargetPolicy
    package var poster: HTTPPoster

    package init(policy: WebhookTargetPolicy, connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(15)) {
        self.policy = policy
        poster = HTTPPoster(connectGuard: policy, connectTimeout: connectTimeout, timeout: timeout, userAgent: "Dispatch-Webhooks/1")
    }

    package func post(url: String, headers: [(String, String)], body: [UInt8]) throws(HTTPPoster.Failure) -> HTTPPoster.Response {
        if let problem = WebhookTargetPolicy.urlProblem(url) { throw HTTPPoster.Failure(message: problem, refusedByGuard: true) }
        guard let host = URLComponents(string: url)?.host else { throw HTTPPoster.Failure(message: "Must name a host.", refusedByGuard: true) }
        if let problem = policy.hostProblem(host) { throw HTTPPoster.Failure(message: problem, refusedByGuard: true) }
        return try poster.post(url: url, headers: headers, body: body)
    }
}

extension WebhookTargetPolicy: ConnectGuard {
    package func refusal(host: String, address: NetworkAddress) -> String? {
        if case .refused(let reason) = permits(host: host, address: address) { return reason }
        return nil
    }
}
