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

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    package func post(url: String, headers: [(String, String)], body: [UInt8]) throws(Failure) -> Response {
        guard let host = URLComponents(string: url)?.host else { throw Failure(message: "Must name a host.", refusedByGuard: true) }
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw Failure(message: "libcurl could not be initialised", refusedByGuard: false)
        }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        // libcurl adds `Expect: 100-continue` to larger bodies; peers need not support it.
        for (name, value) in headers + [("Content-Type", "application/json; charset=utf-8"), ("Expect", "")] {
            list = curl_slist_append(list, "\(name): \(value)")
        }
        defer { curl_slist_free_all(list) }
        let exchange = HTTPExchange(connectGuard: connectGuard, host: host, maxBytes: maxResponseBytes)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = withExtendedLifetime(exchange) {
            body.withUnsafeBufferPointer { bytes in
                errorBuffer.withUnsafeMutableBufferPointer { buffer in
                    let context = Unmanaged.passUnretained(exchange).toOpaque()
                    var status = CURLE_OK
                    func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
                    set(dispatch_curl_setopt_string(handle, CURLOPT_URL, url))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
                    // An environment proxy would make the guard judge the proxy, not the target.
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROXY, ""))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout)))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_USERAGENT, userAgent))
                    set(dispatch_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_POST, 1))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)))
                    set(dispatch_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
                    if connectGuard != nil {
                        set(dispatch_curl_setopt_opensocket_function(handle, HTTPExchange.openSocket))
                        set(dispatch_curl_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context))
                    }
                    set(dispatch_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, HTTPExchange.write))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
                    set(dispatch_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, HTTPExchange.header))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
                    guard status == CURLE_OK else { return status }
                    return curl_easy_perform(handle)
                }
            }
        }
        var reply = 0
        _ = dispatch_curl_response_code(handle, &reply)
        // A body cut at the read limit still leaves the status the peer sent.
        if code == CURLE_OK || (code == CURLE_WRITE_ERROR && exchange.truncated && reply > 0) {
            return Response(status: reply, retryAfter: exchange.retryAfter, excerpt: exchange.excerpt)
        }
        if let refusal = exchange.refusal {
            throw Failure(message: "refused by the address guard: \(refusal)", refusedByGuard: true)
        }
        let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var text = String(cString: curl_easy_strerror(code))
        if !detail.isEmpty { text += ": \(detail)" }
        throw Failure(message: text, refusedByGuard: false)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
