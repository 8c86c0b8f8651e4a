import CLibCurl
import Foundation

/// POSTs background pushes to APNs over HTTP/2 with libcurl, on ONE easy handle kept for the
/// life of the client, so libcurl keeps one TLS connection to APNs open and reuses it for
/// every push (Apple asks providers to keep connections open rather than reconnect per push).
/// Not thread-safe: each sender thread owns its client.
package final class APNsClient: @unchecked Sendable {
    /// APNs' answer: `reason` from the JSON body on errors, `timestamp` (410) when the token
    /// became invalid.
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var reason: String?
        package var timestamp: Date?
        package var apnsID: String?
    }

    /// No answer: the connection failed or timed out.
    package struct Failure: Error, Sendable, Equatable {
        package var message: String
    }

    private let baseURL: String
    private let caFile: String?
    private let timeout: Duration
    private var handle: UnsafeMutableRawPointer?
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// `baseURL`: `https://api.push.apple.com` or the sandbox (or a test's fake); `caFile`:
    /// trust only this CA bundle (tests), nil: the system's.
    package init(baseURL: String, caFile: String?, timeout: Duration = .seconds(10)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.caFile = caFile
        self.timeout = timeout
    }

    deinit {
        if let handle { curl_easy_cleanup(handle) }
    }

    /// One push to `token` (hex). The body is sent as is.
    package func send(token: String, jwt: String, topic: String, body: [UInt8]) throws(Failure) -> Response {
        guard Self.globalInit == CURLE_OK else { throw Failure(message: "libcurl could not be initialised") }
        if handle == nil { handle = curl_easy_init() }
        guard let handle else { throw Failure(message: "libcurl could not be initialised") }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in ["authorization: bearer \(jwt)", "apns-push-type: background", "apns-priority: 5", "apns-topic: \(topic)",
                       "content-type: application/json"] {
            list = curl_slist_append(list, header)
        }
        defer { curl_slist_free_all(list) }
        let exchange = APNsExchange()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let url = "\(baseURL)/3/device/\(token)"
        let code: CURLcode = withExtendedLifetime(exchange) {
            body.withUnsafeBufferPointer { bytes in
                errorBuffer.withUnsafeMutableBufferPointer { buffer in
                    let context = Unmanaged.passUnretained(exchange).toOpaque()
                    var status = CURLE_OK
                    func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
                    set(dispatch_curl_setopt_string(handle, CURLOPT_URL, url))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https"))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROXY, ""))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(timeout)))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)))
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
                    // The handle outlives these buffers: it must not keep pointers into them.
                    _ = dispatch_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                    _ = dispatch_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
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
        var response = Response(status: reply, apnsID: exchange.apnsID)
        if let object = try? JSONSerialization.jsonObject(with: Data(exchange.body)) as? [String: Any] {
            response.reason = object["reason"] as? String
            // Milliseconds since the epoch at which APNs learned the token is no longer valid.
            if let milliseconds = object["timestamp"] as? NSNumber {
                response.timestamp = Date(timeIntervalSince1970: milliseconds.doubleValue / 1000)
            }
        }
        return response
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
