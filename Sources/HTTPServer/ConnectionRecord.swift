import HTTP1

/// A connection as the loop tracks it. A class so the loop mutates it in place in the table.
final class ConnectionRecord {
    let id: UInt64
    let fd: Int32
    let remoteAddress: String
    /// The peer's IP without port (`RequestContext.clientAddress`'s default), parsed once per
    /// connection rather than per request (4 % of a `/healthz`, bench/callgrind).
    let peerAddress: String
    let rejected: Bool
    var machine: ConnectionStateMachine
    var interest: UInt32 = 0
    var deferred: ResponseCompletion?
    /// A streamed response in progress; cancelled when the connection closes.
    var stream: ResponseBodyStream?
    var requestInFlight = false
    /// Whether a request was ever read from it: at shutdown an idle connection that carried
    /// none may have its first request on the way, and is not closed under it.
    var hasCarriedRequest = false
    /// Set once the connection is upgraded; it then never carries HTTP again.
    var webSocket: WebSocketSession?

    init(id: UInt64, fd: Int32, remoteAddress: String, machine: ConnectionStateMachine, rejected: Bool) {
        self.id = id
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.peerAddress = RequestContext.peerAddress(remoteAddress)
        self.machine = machine
        self.rejected = rejected
    }
}
