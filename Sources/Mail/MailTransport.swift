import Synchronization

/// Hands one finished message to whatever delivers it (an SMTP relay, or a file in
/// development). Called on the sender's own thread; may block up to its own timeout.
public protocol MailTransport: Sendable {
    /// Delivers `message` (RFC 5322, CRLF) from the envelope sender to the envelope
    /// recipient, or throws why not. `cancellation` set means: give up now (shutdown).
    func deliver(_ message: String, from sender: String, to recipient: String,
                 cancellation: MailCancellation) throws(MailDeliveryError)
}

/// Why one attempt failed, as the operator reads it in the log and `mail_outbox.last_error`.
public struct MailDeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A flag the sender sets on shutdown so an attempt stuck on a slow relay ends early (the
/// mail stays claimed until its lease ends, then is retried).
public final class MailCancellation: Sendable {
    private let flag = Mutex(false)
    public init() {}
    public var isCancelled: Bool { flag.withLock { $0 } }
    public func cancel() { flag.withLock { $0 = true } }
}
