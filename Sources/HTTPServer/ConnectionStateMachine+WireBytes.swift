import HTTP1

extension ConnectionStateMachine {
    /// Every response leaves through here — handlers', protocol errors from the parser,
    /// timeouts, and the 503 of a connection beyond the limit — so these headers are on all:
    /// - `X-Content-Type-Options: nosniff`: a browser must take `Content-Type` as sent, never
    ///   guess HTML/script from the bytes (an uploaded avatar, a JSON body echoing input).
    /// - `Cache-Control: no-store` unless the handler chose its own (avatars are immutable and
    ///   say so): API answers are per-user and change, so no cache — browser, proxy or CDN —
    ///   may keep them; this includes health, readiness, metrics and every auth response.
    static func wireBytes(_ response: HTTPResponse, omitBody: Bool) -> [UInt8] {
        var response = response
        response.headers.set(name: "X-Content-Type-Options", value: "nosniff")
        if response.headers["Cache-Control"] == nil {
            response.headers.add(name: "Cache-Control", value: "no-store")
        }
        var bytes: [UInt8] = []
        HTTPResponseEncoder.encode(response, omitBody: omitBody, into: &bytes)
        return bytes
    }
}
