/// Why the server could not start.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case addressInUse(host: String, port: Int)
    case invalidAddress(String)
    case systemCall(String, errno: Int32)
    case alreadyStarted

    public var description: String {
        switch self {
        case .addressInUse(let host, let port): return "Address \(host):\(port) is already in use."
        case .invalidAddress(let host): return "'\(host)' is not an IP address (or localhost)."
        case .systemCall(let name, let errno): return "\(name) failed (errno \(errno))."
        case .alreadyStarted: return "The server was already started."
        }
    }
}
