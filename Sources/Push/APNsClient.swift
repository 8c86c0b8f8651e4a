import Foundation

/// POSTs background pushes to APNs over HTTP/2 with libcurl, on ONE easy handle kept for the
/// life of the client (`KeptCurlHandle`), so one TLS connection to APNs is reused for every push.
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
    private let connection: KeptCurlHandle

    /// `baseURL`: `https://api.push.apple.com` or the sandbox (or a test's fake); `caFile`:
    /// trust only this CA bundle (tests), nil: the system's.
    package init(baseURL: String, caFile: String?, timeout: Duration = .seconds(10)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        connection = KeptCurlHandle(caFile: caFile, timeout: timeout)
    }

    /// One push to `token` (hex). The body is sent as is.
    package func send(token: String, jwt: String, topic: String, body: [UInt8]) throws(Failure) -> Response {
        let headers = ["authorization: bearer \(jwt)", "apns-push-type: background", "apns-priority: 5", "apns-topic: \(topic)",
                       "content-type: application/json"]
        let answer: (status: Int, exchange: APNsExchange)
        do {
            answer = try connection.post(url: "\(baseURL)/3/device/\(token)", headers: headers, body: body, protocols: "https", http2: true)
        } catch {
            throw Failure(message: error.message)
        }
        var response = Response(status: answer.status, apnsID: answer.exchange.apnsID)
        if let object = try? JSONSerialization.jsonObject(with: Data(answer.exchange.body)) as? [String: Any] {
            response.reason = object["reason"] as? String
            // Milliseconds since the epoch at which APNs learned the token is no longer valid.
            if let milliseconds = object["timestamp"] as? NSNumber {
                response.timestamp = Date(timeIntervalSince1970: milliseconds.doubleValue / 1000)
            }
        }
        return response
    }
}
