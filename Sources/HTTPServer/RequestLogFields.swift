import Logging
import Synchronization

/// Fields that layers inside the middleware chain add to the request's one log line, such as
/// the authenticated user's id. `RequestContext` is a value that middleware copies and
/// changes on the way in, so nothing an inner layer sets on its copy is visible outside; this
/// box is shared by every copy of one request's context, so `LoggingMiddleware` (outermost)
/// reads what inner layers wrote once `next` returns. Never put secrets or bodies here.
public final class RequestLogFields: Sendable {
    private let fields = Mutex<Logger.Metadata>([:])

    public init() {}

    public subscript(key: String) -> Logger.MetadataValue? {
        get { fields.withLock { $0[key] } }
        set { fields.withLock { $0[key] = newValue } }
    }

    /// A snapshot of every field set so far.
    public var metadata: Logger.Metadata { fields.withLock { $0 } }
}
