import CLibCurl
import Domain
import Foundation

/// One request's state for libcurl's callbacks (called on the caller's thread during
/// `curl_easy_perform`, never concurrently): the guard's verdicts, the headers and the
/// bounded body.
final class HTTPExchange: @unchecked Sendable {
    let connectGuard: (any ConnectGuard)?
    let host: String
    let maxBytes: Int
    private(set) var refusal: String?
    private(set) var retryAfter: Duration?
    private(set) var excerpt = ""
    private(set) var truncated = false
    private var received = 0
    static let excerptBytes = 1024

    init(connectGuard: (any ConnectGuard)?, host: String, maxBytes: Int) {
        self.connectGuard = connectGuard
        self.host = host
        self.maxBytes = maxBytes
    }

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
        if let data, exchange.excerpt.utf8.count < excerptBytes {
            let take = min(length, excerptBytes - exchange.excerpt.utf8.count)
            exchange.excerpt += String(decoding: UnsafeRawBufferPointer(start: data, count: take), as: UTF8.self)
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
            exchange.retryAfter = nil  // a new response (after 100 Continue) starts afresh
        } else if line.lowercased().hasPrefix("retry-after:") {
            let value = line.dropFirst("retry-after:".count).trimmingCharacters(in: .whitespacesAndNewlines)
            if let seconds = Int(value), seconds >= 0 { exchange.retryAfter = .seconds(seconds) }
        }
        return length
    }
}
