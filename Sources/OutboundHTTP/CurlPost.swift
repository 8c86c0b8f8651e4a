import CLibCurl
import Foundation

/// One POST as every outbound client makes it (webhooks, Slack, APNs, FCM): http/https only,
/// no redirect followed (a 3xx is the answer), no proxy from the environment (it would carry
/// our traffic, and a connect guard would judge the proxy instead of the target), a connect and
/// a total timeout, and an optional CA bundle in place of the system's. Performed on a handle
/// the caller owns: a fresh one per request, or one kept so its connection is reused.
struct CurlPost {
    var url: String
    var protocols = "http,https"
    /// HTTP/2 over TLS required (APNs accepts nothing else).
    var http2 = false
    var connectTimeout: Duration
    var timeout: Duration
    var caFile: String?
    var userAgent: String?
    /// Complete header lines ("Name: value").
    var headers: [String]
    var body: [UInt8]

    /// What libcurl said, the status the peer sent (0: none), and libcurl's words on failure.
    struct Outcome {
        var code: CURLcode
        var status: Int
        var error: String
    }

    /// Sets every option on `handle` and performs. The handle is left holding no pointer into
    /// this call's buffers or `exchange`, so a kept handle can outlive them.
    func perform(on handle: UnsafeMutableRawPointer, exchange: HTTPExchange) -> Outcome {
        let transfer = configure(handle, exchange: exchange)
        let code = transfer.failed ?? curl_easy_perform(handle)
        return transfer.finish(code)
    }

    /// `handle` with every option set, ready for `curl_easy_perform` or a multi handle; the
    /// body is copied into libcurl, and `exchange` must live until `finish`.
    func configure(_ handle: UnsafeMutableRawPointer, exchange: HTTPExchange) -> Transfer {
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        var status = CURLE_OK
        func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
        set(dispatch_curl_setopt_string(handle, CURLOPT_URL, url))
        set(dispatch_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, protocols))
        set(dispatch_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, protocols))
        set(dispatch_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        set(dispatch_curl_setopt_string(handle, CURLOPT_PROXY, ""))
        set(dispatch_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        if http2 { set(dispatch_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))) }
        set(dispatch_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout)))
        set(dispatch_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)))
        if let caFile { set(dispatch_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        if let userAgent { set(dispatch_curl_setopt_string(handle, CURLOPT_USERAGENT, userAgent)) }
        set(dispatch_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
        set(dispatch_curl_setopt_long(handle, CURLOPT_POST, 1))
        // The size first: COPYPOSTFIELDS copies that many bytes (a body may hold zeros).
        set(dispatch_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        if body.isEmpty {
            set(dispatch_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, ""))
        } else {
            body.withUnsafeBytes { set(dispatch_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))) }
        }
        if exchange.connectGuard != nil {
            set(dispatch_curl_setopt_opensocket_function(handle, HTTPExchange.openSocket))
            set(dispatch_curl_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context))
        }
        set(dispatch_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, HTTPExchange.write))
        set(dispatch_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
        set(dispatch_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, HTTPExchange.header))
        set(dispatch_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
        set(dispatch_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        return Transfer(handle: handle, list: list, errorBuffer: errorBuffer, failed: status == CURLE_OK ? nil : status)
    }

    /// One configured handle's buffers, released by `finish`.
    struct Transfer {
        let handle: UnsafeMutableRawPointer
        let list: UnsafeMutablePointer<curl_slist>?
        let errorBuffer: UnsafeMutablePointer<CChar>
        /// An option libcurl refused: the transfer must not be performed.
        let failed: CURLcode?

        /// The outcome of the transfer that ended with `code`; the handle keeps no pointer into
        /// the buffers, which are freed.
        func finish(_ code: CURLcode) -> Outcome {
            for option in [CURLOPT_ERRORBUFFER, CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_OPENSOCKETDATA] {
                _ = dispatch_curl_setopt_pointer(handle, option, nil)
            }
            _ = dispatch_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, nil)
            curl_slist_free_all(list)
            var reply = 0
            _ = dispatch_curl_response_code(handle, &reply)
            let detail = String(cString: errorBuffer)
            errorBuffer.deallocate()
            var text = String(cString: curl_easy_strerror(code))
            if !detail.isEmpty { text += ": \(detail)" }
            return Outcome(code: code, status: reply, error: text)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
}
