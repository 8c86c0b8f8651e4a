import Foundation

/// POSTs to Google (the OAuth token endpoint and FCM's `messages:send`) with libcurl, on one
/// easy handle kept for the life of the client (`KeptCurlHandle`) so the connection is reused. Not thread-safe:
/// the sender's thread owns it.
package final class FCMClient: @unchecked Sendable {
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var body: [UInt8]
    }

    package struct Failure: Error, Sendable, Equatable {
        package var message: String
    }

    private let connection: KeptCurlHandle

    package init(caFile: String?, timeout: Duration = .seconds(10)) {
        connection = KeptCurlHandle(caFile: caFile, timeout: timeout)
    }

    package func post(url: String, headers: [String], body: [UInt8]) throws(Failure) -> Response {
        do {
            let answer = try connection.post(url: url, headers: headers + ["Expect:"], body: body, protocols: "http,https", http2: false)
            return Response(status: answer.status, body: answer.exchange.body)
        } catch {
            throw Failure(message: error.message)
        }
    }
}
