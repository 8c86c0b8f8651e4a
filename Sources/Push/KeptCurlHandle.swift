import CLibCurl
import Foundation

/// One libcurl easy handle kept for the life of its owner, so libcurl keeps the connection to
/// the provider open and reuses it for every request (Apple asks providers to keep connections
/// open rather than reconnect per push; Google's endpoints gain the same). No redirect is
/// followed, no proxy is taken from the environment, and `caFile` (tests) replaces the system's
/// CA bundle. Not thread-safe: each sender thread owns its clients and their handles.
final class KeptCurlHandle: @unchecked Sendable {
    struct Failure: Error {
        let message: String
    }

    private let caFile: String?
    private let timeout: Duration
    private var handle: UnsafeMutableRawPointer?
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    init(caFile: String?, timeout: Duration) {
        self.caFile = caFile
        self.timeout = timeout
    }

    deinit {
        if let handle { curl_easy_cleanup(handle) }
    }

    /// POSTs `body` to `url` (`protocols`: libcurl's list, "https" or "http,https"; `http2`:
    /// HTTP/2 over TLS required) and answers the status with what the callbacks gathered.
    func post(url: String, headers: [String], body: [UInt8], protocols: String,
              http2: Bool) throws(Failure) -> (status: Int, exchange: APNsExchange) {
        guard Self.globalInit == CURLE_OK else { throw Failure(message: "libcurl could not be initialised") }
        if handle == nil { handle = curl_easy_init() }
        guard let handle else { throw Failure(message: "libcurl could not be initialised") }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let exchange = APNsExchange()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let milliseconds = Int(timeout.components.seconds) * 1000 + Int(timeout.components.attoseconds / 1_000_000_000_000_000)
        let code: CURLcode = withExtendedLifetime(exchange) {
            body.withUnsafeBufferPointer { bytes in
                errorBuffer.withUnsafeMutableBufferPointer { buffer in
                    let context = Unmanaged.passUnretained(exchange).toOpaque()
                    var status = CURLE_OK
                    func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
                    set(dispatch_curl_setopt_string(handle, CURLOPT_URL, url))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, protocols))
                    if http2 { set(dispatch_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))) }
                    set(dispatch_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROXY, ""))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds))
                    if let caFile { set(dispatch_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
                    set(dispatch_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_POST, 1))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)))
                    set(dispatch_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
                    set(dispatch_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, APNsExchange.write))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
                    set(dispatch_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, APNsExchange.header))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
                    guard status == CURLE_OK else { return status }
                    let result = curl_easy_perform(handle)
                    // The handle outlives these buffers and the exchange: it must not keep pointers into them.
                    _ = dispatch_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                    _ = dispatch_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
                    _ = dispatch_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, nil)
                    _ = dispatch_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, nil)
                    return result
                }
            }
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var text = String(cString: curl_easy_strerror(code))
            if !detail.isEmpty { text += ": \(detail)" }
            throw Failure(message: text)
        }
        var reply = 0
        _ = dispatch_curl_response_code(handle, &reply)
        return (reply, exchange)
    }
}
