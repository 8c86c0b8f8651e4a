import HTTP1

/// Method + path-pattern routing. Patterns are `/`-separated segments; `{name}` captures one
/// non-empty segment. At each segment a literal match is preferred over a parameter, with
/// backtracking, so `/tasks/mine` and `/tasks/{id}` coexist. Segments are percent-decoded
/// after splitting, so an encoded `%2F` stays inside its segment. A last segment `{name...}`
/// captures the rest of the path (one or more segments, decoded, joined with `/`: Storage
/// object names have folders); it is tried after literals and one-segment parameters.
///
/// Unknown paths answer 404 `not_found`; known paths with another method answer 405
/// `method_not_allowed` with `Allow`. HEAD runs the GET handler (the server drops the body);
/// OPTIONS on a known path without its own handler answers 204 with `Allow`.
///
/// Each request is matched once (`resolve(_:)`, called by the server before the middleware);
/// the result travels in `RequestContext.route` and `respond` dispatches from it. Routes are
/// registered inside groups that declare whether they need authentication (`group(auth:_:)`).
public struct Router: HTTPResponder {
    struct Route: Sendable {
        var pattern: String
        var parameterNames: [String]
        var handler: RequestHandler
        var runsOnEventLoop: Bool
        var authentication: RouteAuthentication
        var errorStyle: ErrorStyle
    }

    struct Node: Sendable {
        var literals: [String: Int] = [:]
        var parameterChild: Int?
        /// The node of a `{name...}` last segment (the rest of the path).
        var restChild: Int?
        var routes: [HTTPMethod: Route] = [:]
    }

    private var nodes: [Node] = [Node()]
    /// The requirement of routes registered now: the innermost `group`'s, anonymous outside any.
    private var currentAuthentication = RouteAuthentication.anonymous
    /// The error style of routes registered now: the innermost `group`'s, the contract's outside any.
    private var currentErrorStyle = ErrorStyle.contract
    /// Per first path segment (`v1`), the strictest requirement of its routes: what a request
    /// there that matches no route (404/405) needs, so unknown paths under a protected API
    /// answer 401 to anonymous callers rather than revealing which paths exist.
    private var namespaceAuthentication: [String: RouteAuthentication] = [:]
    /// Per first path segment, the error style of its routes: unmatched requests there (404,
    /// 405, bad paths) answer in the shape the family's clients read.
    private var namespaceErrorStyle: [String: ErrorStyle] = [:]

    /// Called with every resolution, for tracing and for tests that count matches.
    public var onResolve: (@Sendable (ResolvedRoute) -> Void)?

    public init() {}

    /// Registers the routes `register` adds with the authentication requirement `auth`
    /// (Hummingbird's `RouterGroup`, without a path prefix: routes keep their full patterns),
    /// answering errors in `errorStyle` (nil: the enclosing group's, the contract's at the top).
    public mutating func group(auth: RouteAuthentication, errorStyle: ErrorStyle? = nil,
                               _ register: (inout Router) -> Void) {
        let outer = (currentAuthentication, currentErrorStyle)
        currentAuthentication = auth
        currentErrorStyle = errorStyle ?? currentErrorStyle
        register(&self)
        (currentAuthentication, currentErrorStyle) = outer
    }

    /// Registers `handler` for `method` on `pattern` (e.g. `/v1/tasks/{id}/claim`).
    /// A later registration of the same method and pattern replaces the earlier one.
    /// `runsOnEventLoop: true` is for handlers that never block (no database, no I/O, no locks
    /// held for long): they skip the two thread hops to and from the worker pool. Anything
    /// that may block must leave it false, or it stalls every connection.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, runsOnEventLoop: Bool = false,
                            handler: @escaping RequestHandler) {
        var node = 0
        var names: [String] = []
        let segments = Self.segments(of: Substring(pattern))
        if let first = segments.first {
            namespaceAuthentication[String(first)] = max(namespaceAuthentication[String(first)] ?? .anonymous,
                                                          currentAuthentication)
            namespaceErrorStyle[String(first)] = currentErrorStyle
        }
        for (position, segment) in segments.enumerated() {
            if position == segments.count - 1, segment.hasPrefix("{"), segment.hasSuffix("...}"), segment.count > 5 {
                names.append(String(segment.dropFirst().dropLast(4)))
                if let child = nodes[node].restChild {
                    node = child
                } else {
                    nodes.append(Node())
                    nodes[node].restChild = nodes.count - 1
                    node = nodes.count - 1
                }
            } else if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
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
                                             runsOnEventLoop: runsOnEventLoop, authentication: currentAuthentication,
                                             errorStyle: currentErrorStyle)
    }

    /// Every registered (method, pattern), sorted by pattern then method: for checking the
    /// API description against the code, and for bounded-cardinality metric labels.
    public var routes: [(method: HTTPMethod, pattern: String)] {
        nodes.flatMap { node in node.routes.map { (method: $0.key, pattern: $0.value.pattern) } }
            .sorted { ($0.pattern, $0.method.rawValue) < ($1.pattern, $1.method.rawValue) }
    }

    public mutating func get(_ pattern: String, runsOnEventLoop: Bool = false, handler: @escaping RequestHandler) {
        on(.get, pattern, runsOnEventLoop: runsOnEventLoop, handler: handler)
    }
    public mutating func post(_ pattern: String, handler: @escaping RequestHandler) { on(.post, pattern, handler: handler) }
    public mutating func put(_ pattern: String, handler: @escaping RequestHandler) { on(.put, pattern, handler: handler) }
    public mutating func patch(_ pattern: String, handler: @escaping RequestHandler) { on(.patch, pattern, handler: handler) }
    public mutating func delete(_ pattern: String, handler: @escaping RequestHandler) { on(.delete, pattern, handler: handler) }

    /// Matches `request` against the routes: the one match of the request (see `ResolvedRoute`).
    /// A request no route answers needs authentication when routes under its first path
    /// segment do, except OPTIONS, which the router answers itself (CORS preflights carry no
    /// credentials by design).
    public func resolve(_ request: HTTPRequest) -> ResolvedRoute {
        let resolved = resolve(method: request.method, path: request.path)
        onResolve?(resolved)
        return resolved
    }

    public func route(for request: HTTPRequest) -> ResolvedRoute? { resolve(request) }

    public func respond(to request: HTTPRequest, context: RequestContext) throws -> HandlerReply {
        let resolved = context.route.flatMap { $0.resolves(request) ? $0 : nil } ?? resolve(request)
        switch resolved.outcome {
        case .found(let handler):
            var context = context
            context.route = resolved
            context.pathParameters = resolved.parameters
            let reply = try handler(request, context)
            // A refused handshake is the route's error like any other: thrown here, inside the
            // middleware, it is rendered in the route family's shape (and logged, counted).
            if case .webSocket = reply { try WebSocketUpgrade.checkHandshake(request) }
            return reply
        case .methodNotAllowed(let allow):
            let allowValue = allow.joined(separator: ", ")
            if request.method == .options {
                return .response(HTTPResponse(status: .noContent, headers: ["Allow": allowValue]))
            }
            throw HTTPError(status: .methodNotAllowed, code: ServerErrorCode.methodNotAllowed.rawValue,
                            message: "\(request.method.rawValue) is not allowed here.",
                            extraHeaders: ["Allow": allowValue])
        case .notFound:
            throw HTTPError.notFound()
        case .invalidPath(let error):
            throw error
        }
    }

    private func resolve(method: HTTPMethod, path: Substring) -> ResolvedRoute {
        func unmatched(_ outcome: ResolvedRoute.Outcome, namespace: String?) -> ResolvedRoute {
            let needed = method == .options ? .anonymous : namespace.flatMap { namespaceAuthentication[$0] } ?? .anonymous
            return ResolvedRoute(method: method, path: path, outcome: outcome, pattern: nil, parameters: [:],
                                 authentication: needed,
                                 errorStyle: namespace.flatMap { namespaceErrorStyle[$0] } ?? .contract, runsOnEventLoop: false)
        }
        guard path.first == "/" else { return unmatched(.notFound, namespace: nil) }
        var decoded: [String] = []
        for segment in Self.segments(of: path) {
            guard let value = PercentDecoding.decode(segment, plusAsSpace: false) else {
                let error = HTTPError.badRequest(code: ServerErrorCode.invalidPath.rawValue, "The request path has a malformed percent-encoding.")
                return unmatched(.invalidPath(error), namespace: decoded.first)
            }
            decoded.append(value)
        }
        var values: [String] = []
        guard let nodeIndex = find(decoded, 0, 0, &values) else { return unmatched(.notFound, namespace: decoded.first) }
        let routes = nodes[nodeIndex].routes
        let route = routes[method] ?? (method == .head ? routes[.get] : nil)
        guard let route else {
            var allow = Set(routes.keys.map(\.rawValue))
            if allow.contains("GET") { allow.insert("HEAD") }
            return unmatched(.methodNotAllowed(allow: allow.sorted()), namespace: decoded.first)
        }
        var parameters: [String: String] = [:]
        for (name, value) in zip(route.parameterNames, values) { parameters[name] = value }
        return ResolvedRoute(method: method, path: path, outcome: .found(route.handler), pattern: route.pattern,
                             parameters: parameters, authentication: route.authentication,
                             errorStyle: route.errorStyle, runsOnEventLoop: route.runsOnEventLoop)
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
        if let rest = nodes[node].restChild, !nodes[rest].routes.isEmpty {
            values.append(segments[index...].joined(separator: "/"))
            return rest
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
