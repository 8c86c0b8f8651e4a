import Foundation
import OutboundHTTP

/// POSTs background pushes to APNs over HTTP/2 with libcurl, on ONE connection kept for the
/// life of the client (`KeptConnection`) and reused for every push.
/// Not thread-safe: each sender thread owns its client.
package final class APNsClient: @unchecked Sendable {
    /// APNs' answer: `reason` from the JSON body on errors, `timestamp` (410) when the token
    /// became invalid.
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var reason: String?
        package var timestamp: Date?
        package var apnsID: String?

        /// The provider token is past its hour: a new one fixes it.
        var isExpiredProviderToken: Bool { status == 403 && reason == "ExpiredProviderToken" }
    }

    /// No answer: the connection failed or timed out.
    package struct Failure: Error, Sendable, Equatable {
        package var message: String
    }

    private let baseURL: String
    private let connection: KeptConnection

    /// `baseURL`: `https://api.push.apple.com` or the sandbox (or a test's fake); `caFile`:
    /// trust only this CA bundle (tests), nil: the system's.
    package init(baseURL: String, caFile: String?, timeout: Duration = .seconds(10)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        connection = KeptConnection(caFile: caFile, timeout: timeout, protocols: "https", http2: true)
    }

    /// One push to `token` (hex). The body is sent as is.
    package func send(token: String, jwt: String, topic: String, body: [UInt8]) throws(Failure) -> Response {
        try sendAll([(token, body)], jwt: jwt, topic: topic)[0].get()
    }

    /// Pushes at once, as concurrent HTTP/2 streams on the one connection (Apple's way to send
    /// many: a batch costs about one round trip); answers in the pushes' order.
    package func sendAll(_ pushes: [(token: String, body: [UInt8])], jwt: String, topic: String) -> [Result<Response, Failure>] {
        let headers = ["authorization: bearer \(jwt)", "apns-push-type: background", "apns-priority: 5", "apns-topic: \(topic)",
                       "content-type: application/json"]
        let requests = pushes.map { KeptConnection.Request(url: "\(baseURL)/3/device/\($0.token)", headers: headers, body: $0.body) }
        return connection.postAll(requests, capture: ["apns-id"]).map { answer in
            answer.map(Self.response).mapError { Failure(message: $0.message) }
        }
    }

    private static func response(_ answer: KeptConnection.Answer) -> Response {
        var response = Response(status: answer.status, apnsID: answer.headers["apns-id"])
        if let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] {
            response.reason = object["reason"] as? String
            // Milliseconds since the epoch at which APNs learned the token is no longer valid.
            if let milliseconds = object["timestamp"] as? NSNumber {
                response.timestamp = Date(timeIntervalSince1970: milliseconds.doubleValue / 1000)
            }
        }
        return response
    }
}
