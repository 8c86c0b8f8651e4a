import HTTP1

/// Method + path-pattern routing. Patterns are `/`-separated segments; `{name}` captures one
/// non-empty segment. At each segment a literal match is preferred over a parameter, with
/// backtracking, so `/tasks/mine` and `/tasks/{id}` coexist. Segments are percent-decoded
/// after splitting, so an encoded `%2F` stays inside its segment.
///
/// Unknown paths answer 404 `not_found`; known paths with another method answer 405
/// `method_not_allowed` with `Allow`. HEAD runs the GET handler (the server drops the body);
/// OPTIONS on a known path without its own handler answers 204 with `Allow`.
public struct Router: HTTPResponder {
    struct Route: Sendable {
        var pattern: String
        var parameterNames: [String]
        var handler: RequestHandler
        var runsOnEventLoop: Bool
    }

    struct Node: Sendable {
        var literals: [String: Int] = [:]
        var parameterChild: Int?
        var routes: [HTTPMethod: Route] = [:]
    }

    enum Match {
        case found(Route, [String: String])
        case methodNotAllowed(allow: [String])
        case notFound
    }

    private var nodes: [Node] = [Node()]

    public init() {}

    /// Registers `handler` for `method` on `pattern` (e.g. `/v1/tasks/{id}/claim`).
    /// A later registration of the same method and pattern replaces the earlier one.
    /// `runsOnEventLoop: true` is for handlers that never block (no database, no I/O, no locks
    /// held for long): they skip the two thread hops to and from the worker pool. Anything
    /// that may block must leave it false, or it stalls every connection.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, runsOnEventLoop: Bool = false,
                            handler: @escaping RequestHandler) {
        var node = 0
        var names: [String] = []
        for segment in Self.segments(of: Substring(pattern)) {
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                names.append(String(segment.dropFirst().dropLast()))
                if let child = nodes[node].parameterChild {
                    node = child
                } else {
                    nodes.append(Node())
                    nodes[node].parameterChild = nodes.count - 1
                    node = nodes.count - 1
                }
            } else {
                let literal = String(segment)
                if let child = nodes[node].literals[literal] {
                    node = child
                } else {
                    nodes.append(Node())
                    nodes[node].literals[literal] = nodes.count - 1
                    node = nodes.count - 1
                }
            }
        }
        nodes[node].routes[method] = Route(pattern: pattern, parameterNames: names, handler: handler,
                                             runsOnEventLoop: runsOnEventLoop)
    }

    /// Every registered (method, pattern), sorted by pattern then method: for checking the
    /// API description against the code, and for bounded-cardinality metric labels.
    public var routes: [(method: HTTPMethod, pattern: String)] {
        nodes.flatMap { node in node.routes.map { (method: $0.key, pattern: $0.value.pattern) } }
            .sorted { ($0.pattern, $0.method.rawValue) < ($1.pattern, $1.method.rawValue) }
    }

    /// The pattern of the route that would answer `method` on `path`, or nil for 404/405
    /// (so unmatched paths never become metric labels).
    public func pattern(method: HTTPMethod, path: Substring) -> String? {
        guard case .found(let route, _)? = try? match(method: method, path: path) else { return nil }
        return route.pattern
    }

    public func runsOnEventLoop(_ request: HTTPRequest) -> Bool {
        guard case .found(let route, _)? = try? match(method: request.method, path: request.path) else { return false }
        return route.runsOnEventLoop
    }

    public mutating func get(_ pattern: String, runsOnEventLoop: Bool = false, handler: @escaping RequestHandler) {
        on(.get, pattern, runsOnEventLoop: runsOnEventLoop, handler: handler)
    }
    public mutating func post(_ pattern: String, handler: @escaping RequestHandler) { on(.post, pattern, handler: handler) }
    public mutating func put(_ pattern: String, handler: @escaping RequestHandler) { on(.put, pattern, handler: handler) }
    public mutating func patch(_ pattern: String, handler: @escaping RequestHandler) { on(.patch, pattern, handler: handler) }
    public mutating func delete(_ pattern: String, handler: @escaping RequestHandler) { on(.delete, pattern, handler: handler) }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HandlerReply {
        switch try match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            var context = context
            context.pathParameters = parameters
            return try route.handler(request, context)
        case .methodNotAllowed(let allow):
            let allowValue = allow.joined(separator: ", ")
            if request.method == .options {
                return .response(HTTPResponse(status: .noContent, headers: ["Allow": allowValue]))
            }
            throw HTTPError(status: .methodNotAllowed, code: "method_not_allowed",
                            message: "\(request.method.rawValue) is not allowed here.",
                            extraHeaders: ["Allow": allowValue])
        case .notFound:
            throw HTTPError.notFound()
        }
    }

    /// Finds the handler for `method` and the raw (percent-encoded) `path`.
    func match(method: HTTPMethod, path: Substring) throws -> Match {
        guard path.first == "/" else { return .notFound }
        var decoded: [String] = []
        for segment in Self.segments(of: path) {
            guard let value = PercentDecoding.decode(segment, plusAsSpace: false) else {
                throw HTTPError.badRequest(code: "invalid_path", "The request path has a malformed percent-encoding.")
            }
            decoded.append(value)
        }
        var values: [String] = []
        guard let nodeIndex = find(decoded, 0, 0, &values) else { return .notFound }
        let routes = nodes[nodeIndex].routes
        let route = routes[method] ?? (method == .head ? routes[.get] : nil)
        guard let route else {
            var allow = Set(routes.keys.map(\.rawValue))
            if allow.contains("GET") { allow.insert("HEAD") }
            return .methodNotAllowed(allow: allow.sorted())
        }
        var parameters: [String: String] = [:]
        for (name, value) in zip(route.parameterNames, values) { parameters[name] = value }
        return .found(route, parameters)
    }

    private func find(_ segments: [String], _ index: Int, _ node: Int, _ values: inout [String]) -> Int? {
        if index == segments.count { return nodes[node].routes.isEmpty ? nil : node }
        let segment = segments[index]
        if let literal = nodes[node].literals[segment], let found = find(segments, index + 1, literal, &values) {
            return found
        }
        if let parameter = nodes[node].parameterChild, !segment.isEmpty {
            values.append(segment)
            if let found = find(segments, index + 1, parameter, &values) { return found }
            values.removeLast()
        }
        return nil
    }

    /// `/a/b` → ["a", "b"]; `/` → []; a trailing slash yields a final empty segment.
    static func segments(of path: Substring) -> [Substring] {
        let trimmed = path.first == "/" ? path.dropFirst() : path
        if trimmed.isEmpty { return [] }
        return trimmed.split(separator: "/", omittingEmptySubsequences: false)
    }
}
