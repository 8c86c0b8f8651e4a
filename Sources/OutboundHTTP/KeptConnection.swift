import CLibCurl
import Foundation

/// A connection to one provider kept for the life of its owner: a libcurl multi handle, whose
/// connection cache keeps the connection open and reuses it for every request (Apple asks
/// providers to keep connections open rather than reconnect per push; Google's endpoints gain
/// the same). Over HTTP/2, `postAll` sends a batch as concurrent streams on that one
/// connection, so a batch costs about one round trip rather than one per request. Posts as
/// every outbound client does (`CurlPost`); `caFile` (tests) replaces the system's CA bundle.
/// Not thread-safe: each sender thread owns its clients and their connections.
package final class KeptConnection: @unchecked Sendable {
    /// A provider's answer: its status, the first `keepBytes` of its body (the JSON of an
    /// error, a token), and the headers asked for (lower-cased names).
    package struct Answer: Sendable, Equatable {
        package var status: Int
        package var body: [UInt8]
        package var headers: [String: String]
    }

    package struct Failure: Error, Sendable, Equatable {
        package var message: String
    }

    package struct Request: Sendable {
        package var url: String
        package var headers: [String]
        package var body: [UInt8]

        package init(url: String, headers: [String], body: [UInt8]) {
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    private let caFile: String?
    private let timeout: Duration
    private let protocols: String
    private let http2: Bool
    private var multi: UnsafeMutableRawPointer?
    /// Providers answer in a few dozen bytes (APNs' `{"reason":…}`) to a few KiB (an OAuth
    /// token): more is kept than they send, and a body past the cap ends the transfer.
    private static let keepBytes = 16 * 1024

    /// `protocols`: libcurl's list, "https" or "http,https"; `http2`: HTTP/2 over TLS required.
    package init(caFile: String?, timeout: Duration, protocols: String, http2: Bool) {
        self.caFile = caFile
        self.timeout = timeout
        self.protocols = protocols
        self.http2 = http2
    }

    deinit {
        if let multi { curl_multi_cleanup(multi) }
    }

    /// POSTs `body` to `url`; `capture`: the headers of the answer to keep.
    package func post(url: String, headers: [String], body: [UInt8], capture: Set<String> = []) throws(Failure) -> Answer {
        try postAll([Request(url: url, headers: headers, body: body)], capture: capture)[0].get()
    }

    /// Every request at once, as concurrent streams over the kept connection (HTTP/2), or one
    /// after another on it (HTTP/1.1); answers in the requests' order. Each request has the
    /// whole timeout, counted from the start of the batch.
    package func postAll(_ requests: [Request], capture: Set<String> = []) -> [Result<Answer, Failure>] {
        guard CurlPost.globalInit == CURLE_OK, let multi = multiHandle() else {
            return requests.map { _ in .failure(Failure(message: "libcurl could not be initialised")) }
        }
        var results = [Result<Answer, Failure>](repeating: .failure(Failure(message: "not sent")), count: requests.count)
        var running: [(index: Int, handle: UnsafeMutableRawPointer, exchange: HTTPExchange, transfer: CurlPost.Transfer)] = []
        for (index, request) in requests.enumerated() {
            guard let handle = curl_easy_init() else {
                results[index] = .failure(Failure(message: "libcurl could not be initialised"))
                continue
            }
            let exchange = HTTPExchange(connectGuard: nil, host: "", maxBytes: Self.keepBytes * 4, keepBytes: Self.keepBytes, capture: capture)
            let post = CurlPost(url: request.url, protocols: protocols, http2: http2, connectTimeout: timeout, timeout: timeout,
                                caFile: caFile, headers: request.headers, body: request.body)
            let transfer = post.configure(handle, exchange: exchange)
            // Wait for the connection to say whether it multiplexes rather than open another.
            _ = dispatch_curl_setopt_long(handle, CURLOPT_PIPEWAIT, 1)
            if let refused = transfer.failed {
                results[index] = .failure(Failure(message: transfer.finish(refused).error))
                curl_easy_cleanup(handle)
                continue
            }
            curl_multi_add_handle(multi, handle)
            running.append((index, handle, exchange, transfer))
        }
        var active: Int32 = 0
        repeat {
            guard curl_multi_perform(multi, &active) == CURLM_OK else { break }
            var code = CURLE_OK
            while let done = dispatch_curl_multi_next_done(multi, &code) {
                guard let position = running.firstIndex(where: { $0.handle == done }) else { continue }
                let finished = running.remove(at: position)
                results[finished.index] = Self.result(finished.transfer.finish(code), finished.exchange)
                curl_multi_remove_handle(multi, finished.handle)
                curl_easy_cleanup(finished.handle)
            }
            if active > 0 { _ = curl_multi_poll(multi, nil, 0, 1000, nil) }
        } while active > 0
        // Anything libcurl did not report (a failing multi handle): ended without an answer.
        for left in running {
            results[left.index] = .failure(Failure(message: left.transfer.finish(CURLE_ABORTED_BY_CALLBACK).error))
            curl_multi_remove_handle(multi, left.handle)
            curl_easy_cleanup(left.handle)
        }
        return results
    }

    private static func result(_ outcome: CurlPost.Outcome, _ exchange: HTTPExchange) -> Result<Answer, Failure> {
        guard outcome.code == CURLE_OK else { return .failure(Failure(message: outcome.error)) }
        return .success(Answer(status: outcome.status, body: exchange.body, headers: exchange.headers))
    }

    private func multiHandle() -> UnsafeMutableRawPointer? {
        if multi == nil, let created = curl_multi_init() {
            _ = dispatch_curl_multi_setopt_long(created, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
            // One connection per provider host, as Apple asks; HTTP/2 streams share it.
            _ = dispatch_curl_multi_setopt_long(created, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
            // Kept between batches: by default the cache is sized by the transfers in it, and
            // shrinks to nothing when a batch ends.
            _ = dispatch_curl_multi_setopt_long(created, CURLMOPT_MAXCONNECTS, 4)
            multi = created
        }
        return multi
    }
}
