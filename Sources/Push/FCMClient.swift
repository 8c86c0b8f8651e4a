import CLibCurl
import Foundation

/// POSTs to Google (the OAuth token endpoint and FCM's `messages:send`) with libcurl, on one
/// easy handle kept for the life of the client so the connection is reused. Not thread-safe:
/// the sender's thread owns it.
package final class FCMClient: @unchecked Sendable {
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var body: [UInt8]
    }

    package struct Failure: Error, Sendable, Equatable {
        package var message: String
    }

    private let caFile: String?
    private let timeout: Duration
    private var handle: UnsafeMutableRawPointer?
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    package init(caFile: String?, timeout: Duration = .seconds(10)) {
        self.caFile = caFile
        self.timeout = timeout
    }

    deinit {
        if let handle { curl_easy_cleanup(handle) }
    }

    package func post(url: String, headers: [String], body: [UInt8]) throws(Failure) -> Response {
        guard Self.globalInit == CURLE_OK else { throw Failure(message: "libcurl could not be initialised") }
        if handle == nil { handle = curl_easy_init() }
        guard let handle else { throw Failure(message: "libcurl could not be initialised") }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Expect:"] { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let exchange = APNsExchange()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = withExtendedLifetime(exchange) {
            body.withUnsafeBufferPointer { bytes in
                errorBuffer.withUnsafeMutableBufferPointer { buffer in
                    let context = Unmanaged.passUnretained(exchange).toOpaque()
                    var status = CURLE_OK
                    func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
                    set(dispatch_curl_setopt_string(handle, CURLOPT_URL, url))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PROXY, ""))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, APNsClient.milliseconds(timeout)))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, APNsClient.milliseconds(timeout)))
                    if let caFile { set(dispatch_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
                    set(dispatch_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
                    set(dispatch_curl_setopt_long(handle, CURLOPT_POST, 1))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)))
                    set(dispatch_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
                    set(dispatch_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, APNsExchange.write))
                    set(dispatch_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
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
        return Response(status: reply, body: exchange.body)
    }
}
