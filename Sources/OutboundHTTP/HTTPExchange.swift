import CLibCurl
import Domain
import Foundation

/// One request's state for libcurl's callbacks (called on the caller's thread during
/// `curl_easy_perform`, never concurrently): the guard's verdicts, `Retry-After`, the headers
/// asked for, and the body: its first `keepBytes` kept, the transfer cut after `maxBytes`.
final class HTTPExchange: @unchecked Sendable {
    let connectGuard: (any ConnectGuard)?
    let host: String
    let maxBytes: Int
    let keepBytes: Int
    /// Lower-cased names of the headers to keep.
    let capture: Set<String>
    private(set) var refusal: String?
    private(set) var retryAfter: Duration?
    private(set) var headers: [String: String] = [:]
    private(set) var body: [UInt8] = []
    private(set) var truncated = false
    private var received = 0

    init(connectGuard: (any ConnectGuard)?, host: String, maxBytes: Int, keepBytes: Int = 1024, capture: Set<String> = []) {
        self.connectGuard = connectGuard
        self.host = host
        self.maxBytes = maxBytes
        self.keepBytes = keepBytes
        self.capture = capture
    }

    /// The kept body as text (an error word, an excerpt for a delivery log).
    var excerpt: String { String(decoding: body, as: UTF8.self) }

    /// CURLOPT_OPENSOCKETFUNCTION: the address libcurl resolved and is about to connect to.
    /// Refusing returns CURL_SOCKET_BAD, which libcurl reports as a failed connection.
    static let openSocket: curl_opensocket_callback = { context, purpose, address in
        guard let context, let address else { return CURL_SOCKET_BAD }
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
        var text = [CChar](repeating: 0, count: 64)
        guard dispatch_curl_sockaddr_text(address, &text, socklen_t(text.count)) == 0 else {
            exchange.refusal = "an address that is neither IPv4 nor IPv6"
            return CURL_SOCKET_BAD
        }
        let shown = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let parsed = NetworkAddress(shown) else {
            exchange.refusal = "an address that is neither IPv4 nor IPv6"
            return CURL_SOCKET_BAD
        }
        if let reason = exchange.connectGuard?.refusal(host: exchange.host, address: parsed) {
            exchange.refusal = "\(shown) is \(reason)"
            return CURL_SOCKET_BAD
        }
        return dispatch_curl_open_socket(address)
    }

    static let write: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if exchange.received + length > exchange.maxBytes {
            exchange.truncated = true
            return 0
        }
        if let data, exchange.body.count < exchange.keepBytes {
            let take = min(length, exchange.keepBytes - exchange.body.count)
            exchange.body += UnsafeRawBufferPointer(start: data, count: take)
        }
        exchange.received += length
        return length
    }

    static let header: curl_write_callback = { data, size, count, context in
        guard let context, let data else { return 0 }
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if line.lowercased().hasPrefix("http/") {
            // A new response (after 100 Continue) starts afresh.
            exchange.retryAfter = nil
            exchange.headers = [:]
            return length
        }
        guard let colon = line.firstIndex(of: ":") else { return length }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if name == "retry-after", let seconds = Int(value), seconds >= 0 { exchange.retryAfter = .seconds(seconds) }
        if exchange.capture.contains(name) { exchange.headers[name] = value }
        return length
    }
}
