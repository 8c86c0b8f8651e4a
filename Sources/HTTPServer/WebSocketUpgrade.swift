import COpenSSL
import Foundation
import HTTP1
import Logging

/// A handler's accepted upgrade on its way from the worker to the event loop, with the
/// handshake already checked and the accept value computed (off the loop thread).
struct WebSocketUpgrade: Sendable {
    let handler: any WebSocketHandler
    let accept: String
    /// The upgrade request's logger (with its `request_id`): the connection's open and close
    /// are logged with it, so both lines join the request that started it.
    let logger: Logger

    /// Checks the opening handshake of `request` for a route that answered `.webSocket`:
    /// the upgrade, or the error (400; 426 with `Sec-WebSocket-Version: 13`). `Router` has
    /// already thrown that error inside the middleware chain, so the application rendered it
    /// in the route's style; this check is the backstop for other responders.
    static func resolve(_ handler: any WebSocketHandler, request: HTTPRequest,
                        logger: Logger) -> Result<WebSocketUpgrade, HTTPError> {
        switch WebSocketHandshake.validate(request.head) {
        case .success(let key):
            var logger = logger
            logger[metadataKey: "path"] = .string(String(request.path))
            return .success(WebSocketUpgrade(handler: handler, accept: acceptValue(for: key), logger: logger))
        case .failure(let problem):
            return .failure(error(for: problem))
        }
    }

    /// Throws what is wrong with `request` as an opening handshake, for the middleware to render.
    static func checkHandshake(_ request: HTTPRequest) throws(HTTPError) {
        if case .failure(let problem) = WebSocketHandshake.validate(request.head) { throw error(for: problem) }
    }

    static func error(for problem: WebSocketHandshake.Problem) -> HTTPError {
        switch problem {
        case .notAnUpgrade(let message):
            HTTPError(status: .badRequest, code: ServerErrorCode.webSocketHandshakeInvalid.rawValue, message: message,
                      hint: "Send GET with Connection: Upgrade, Upgrade: websocket, Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key.")
        case .unsupportedVersion:
            HTTPError(status: .upgradeRequired, code: ServerErrorCode.webSocketVersionUnsupported.rawValue,
                      message: "Only WebSocket version 13 is supported.", extraHeaders: ["Sec-WebSocket-Version": "13"])
        case .invalidKey:
            HTTPError(status: .badRequest, code: ServerErrorCode.webSocketHandshakeInvalid.rawValue,
                      message: "Sec-WebSocket-Key must be the base64 encoding of 16 bytes.")
        }
    }

    /// base64(SHA-1(key + GUID)) (RFC 6455 §4.2.2), SHA-1 from OpenSSL.
    static func acceptValue(for key: String) -> String {
        let input = Array((key + WebSocketHandshake.acceptGUID).utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        input.withUnsafeBufferPointer { source in
            digest.withUnsafeMutableBufferPointer { out in
                _ = COpenSSL.SHA1(source.baseAddress, source.count, out.baseAddress)
            }
        }
        return Data(digest).base64EncodedString()
    }
}
