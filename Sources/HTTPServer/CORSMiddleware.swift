import HTTP1

/// CORS for browser clients. Requests whose `Origin` is allowed get
/// `Access-Control-Allow-Origin` (echoing the origin, with `Vary: Origin`); preflight
/// `OPTIONS` requests carrying `Access-Control-Request-Method` are answered 204 here without
/// reaching the router. Disallowed origins get no CORS headers, which makes browsers refuse.
public struct CORSMiddleware: Middleware {
    /// Exact origins (`https://app.example.com`) or `"*"` for any.
    public var allowedOrigins: [String]
    public var allowedMethods: [String]
    public var allowedHeaders: [String]
    public var exposedHeaders: [String]
    public var maxAgeSeconds: Int

    public init(allowedOrigins: [String],
                allowedMethods: [String] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
                allowedHeaders: [String] = defaultAllowedHeaders,
                exposedHeaders: [String] = defaultExposedHeaders,
                maxAgeSeconds: Int = 600) {
        self.allowedOrigins = allowedOrigins
        self.allowedMethods = allowedMethods
        self.allowedHeaders = allowedHeaders
        self.exposedHeaders = exposedHeaders
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// Ours, plus what the Supabase browser clients send (`apikey`, `x-client-info`,
    /// `x-supabase-api-version`, PostgREST's `Range`, `Range-Unit` and profile headers):
    /// without them a browser's preflight for `/auth/v1` or `/rest/v1` fails.
    public static let defaultAllowedHeaders = [
        "Authorization", "Content-Type", "If-Match", "X-Request-Id", "Prefer",
        "apikey", "x-client-info", "x-supabase-api-version", "Range", "Range-Unit", "Accept-Profile", "Content-Profile",
    ]
    /// `Content-Range` carries PostgREST counts; `X-Supabase-Api-Version` the GoTrue error version.
    public static let defaultExposedHeaders = ["ETag", "X-Request-Id", "Retry-After", "Content-Range", "X-Supabase-Api-Version"]

    func isAllowed(_ origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains(origin)
    }

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        guard let origin = request.headers["Origin"], isAllowed(origin) else {
            return try next(request, context)
        }
        if request.method == .options, request.headers.contains("Access-Control-Request-Method") {
            var headers = HTTPHeaders()
            headers.add(name: "Access-Control-Allow-Origin", value: origin)
            headers.add(name: "Vary", value: "Origin")
            headers.add(name: "Access-Control-Allow-Methods", value: allowedMethods.joined(separator: ", "))
            headers.add(name: "Access-Control-Allow-Headers", value: allowedHeaders.joined(separator: ", "))
            headers.add(name: "Access-Control-Max-Age", value: String(maxAgeSeconds))
            return .response(HTTPResponse(status: .noContent, headers: headers))
        }
        let exposed = exposedHeaders.joined(separator: ", ")
        return try next(request, context).map { response in
            var response = response
            response.headers.set(name: "Access-Control-Allow-Origin", value: origin)
            response.headers.add(name: "Vary", value: "Origin")
            if !exposed.isEmpty { response.headers.set(name: "Access-Control-Expose-Headers", value: exposed) }
            return response
        }
    }
}
