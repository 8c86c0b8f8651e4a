import CLibCurl
import Foundation

/// POSTs JSON to Slack (an incoming webhook, a `response_url`) with libcurl: http(s) only,
/// redirects never followed (a 3xx is a failure), connect and total timeouts, and at most
/// `maxKept` bytes of the answer kept (Slack answers `ok` or a short error word); an answer
/// past `maxRead` aborts the transfer.
package struct SlackHTTPTransport: Sendable {
    package let connectTimeout: Duration
    package let timeout: Duration
    static let maxKept = 4096
    static let maxRead = 65_536

    package init(connectTimeout: Duration, timeout: Duration) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    package struct Answer: Sendable, Equatable {
        package var status: Int
        package var body: String
        /// Retry-After in seconds, when the answer carried one.
        package var retryAfter: Int?
    }

    package struct Failure: Error, Sendable {
        package let message: String
    }

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    package func post(url: String, json: String) throws(Failure) -> Answer {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else { throw Failure(message: "libcurl could not be initialised") }
        defer { curl_easy_cleanup(handle) }
        var headers = curl_slist_append(nil, "Content-Type: application/json; charset=utf-8")
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        let sink = Sink()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = withExtendedLifetime(sink) {
            errorBuffer.withUnsafeMutableBufferPointer { buffer in
                var status = CURLE_OK
                func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
                set(dispatch_curl_setopt_string(handle, CURLOPT_URL, url))
                set(dispatch_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
                set(dispatch_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
                set(dispatch_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                set(dispatch_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout)))
                set(dispatch_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)))
                set(dispatch_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers))
                set(dispatch_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, json.utf8.count))
                set(dispatch_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, json))
                set(dispatch_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, Self.write))
                set(dispatch_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()))
                set(dispatch_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
                guard status == CURLE_OK else { return status }
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var text = String(cString: curl_easy_strerror(code))
            if !detail.isEmpty { text += ": \(detail)" }
            throw Failure(message: text)
        }
        var status = 0
        _ = dispatch_curl_response_code(handle, &status)
        var retryAfter: curl_off_t = 0
        _ = dispatch_curl_retry_after(handle, &retryAfter)
        return Answer(status: status, body: String(decoding: sink.kept, as: UTF8.self),
                      retryAfter: retryAfter > 0 ? Int(clamping: retryAfter) : nil)
    }

    private final class Sink {
        var kept: [UInt8] = []
        var read = 0
    }

    /// Keeps the first `maxKept` bytes; returning less than given aborts the transfer.
    private static let write: curl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        sink.read += length
        guard sink.read <= maxRead else { return 0 }
        let room = max(0, maxKept - sink.kept.count)
        if room > 0 {
            data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                sink.kept.append(contentsOf: UnsafeBufferPointer(start: bytes, count: min(room, length)))
            }
        }
        return length
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
