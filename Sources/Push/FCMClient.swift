import Foundation
import OutboundHTTP

/// POSTs to Google (the OAuth token endpoint and FCM's `messages:send`) with libcurl, on one
/// easy handle kept for the life of the client (`KeptConnection`) so the connection is reused. Not thread-safe:
/// the sender's thread owns it.
package final class FCMClient: @unchecked Sendable {
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var body: [UInt8]
    }

    package struct Failure: Error, Sendable, Equatable {
        package var message: String
    }

    private let connection: KeptConnection

    package init(caFile: String?, timeout: Duration = .seconds(10)) {
        connection = KeptConnection(caFile: caFile, timeout: timeout, protocols: "http,https", http2: false)
    }

    package func post(url: String, headers: [String], body: [UInt8]) throws(Failure) -> Response {
        do {
            let answer = try connection.post(url: url, headers: headers + ["Expect:"], body: body)
            return Response(status: answer.status, body: answer.body)
        } catch {
            throw Failure(message: error.message)
        }
    }
}
