import CLibCurl
import Foundation

/// POSTs one request to a peer we do not control (a webhook receiver, Slack) with libcurl:
/// http/https only, no redirect followed (a 3xx is the answer), no proxy from the environment,
/// a connect and a total timeout, at most `maxResponseBytes` of the answer read (the rest is
/// not waited for), and, with a `connectGuard`, every connection's resolved address judged
/// before the socket is opened (CURLOPT_OPENSOCKETFUNCTION), so the guard sees exactly the
/// address used.
package struct HTTPPoster: Sendable {
    package var connectGuard: (any ConnectGuard)?
    package var connectTimeout: Duration
    package var timeout: Duration
    package var userAgent: String
    package var maxResponseBytes = 64 * 1024

    package init(connectGuard: (any ConnectGuard)?, connectTimeout: Duration, timeout: Duration, userAgent: String) {
        self.connectGuard = connectGuard
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.userAgent = userAgent
    }

    /// A peer's answer.
    package struct Response: Sendable, Equatable {
        package var status: Int
        /// `Retry-After` in seconds, when sent as a number.
        package var retryAfter: Duration?
        /// The first KiB of the body (an error word, an excerpt for a delivery log).
        package var excerpt: String

        package init(status: Int, retryAfter: Duration?, excerpt: String) {
            self.status = status
            self.retryAfter = retryAfter
            self.excerpt = excerpt
        }
    }

    /// No answer: the guard refused the address, or the connection failed or timed out.
    package struct Failure: Error, Sendable, Equatable {
        package var message: String
        /// True when the guard refused every address of the host (or the caller's checks did).
        package var refusedByGuard: Bool

        package init(message: String, refusedByGuard: Bool) {
            self.message = message
            self.refusedByGuard = refusedByGuard
        }
    }

    package func post(url: String, headers: [(String, String)], body: [UInt8]) throws(Failure) -> Response {
        guard let host = URLComponents(string: url)?.host else { throw Failure(message: "Must name a host.", refusedByGuard: true) }
        guard CurlPost.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw Failure(message: "libcurl could not be initialised", refusedByGuard: false)
        }
        defer { curl_easy_cleanup(handle) }
        // libcurl adds `Expect: 100-continue` to larger bodies; peers need not support it.
        let lines = (headers + [("Content-Type", "application/json; charset=utf-8"), ("Expect", "")]).map { "\($0): \($1)" }
        let exchange = HTTPExchange(connectGuard: connectGuard, host: host, maxBytes: maxResponseBytes)
        let request = CurlPost(url: url, connectTimeout: connectTimeout, timeout: timeout, userAgent: userAgent, headers: lines, body: body)
        let outcome = request.perform(on: handle, exchange: exchange)
        // A body cut at the read limit still leaves the status the peer sent.
        if outcome.code == CURLE_OK || (outcome.code == CURLE_WRITE_ERROR && exchange.truncated && outcome.status > 0) {
            return Response(status: outcome.status, retryAfter: exchange.retryAfter, excerpt: exchange.excerpt)
        }
        if let refusal = exchange.refusal {
            throw Failure(message: "refused by the address guard: \(refusal)", refusedByGuard: true)
        }
        throw Failure(message: outcome.error, refusedByGuard: false)
    }
}
