/// The protocol versions this server speaks. Anything else is answered with 505.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    case http10
    case http11

    public var description: String {
        switch self {
        case .http10: return "HTTP/1.0"
        case .http11: return "HTTP/1.1"
        }
    }
}
