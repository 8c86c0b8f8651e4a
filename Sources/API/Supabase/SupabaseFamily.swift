import HTTP1
import HTTPServer

/// One of the Supabase-compatible path families `SupabaseGateway` guards.
public enum SupabaseFamily: String, Sendable, CaseIterable {
    case auth, rest, storage, realtime

    /// The family whose prefix (`/auth/v1`, …) `path` is or starts with.
    public init?(path: Substring) {
        for family in Self.allCases {
            let prefix = family.prefix
            if path == prefix || path.hasPrefix(prefix + "/") {
                self = family
                return
            }
        }
        return nil
    }

    public var prefix: String { "/\(rawValue)/v1" }

    /// The family's error shape, or nil to leave the error to the server's renderer. `/auth/v1`
    /// speaks GoTrue's; the contract's `{"code","message","details","hint"}` already is
    /// PostgREST's shape, so `/rest/v1` may use the default (or add its own renderer here);
    /// `/storage/v1` speaks Storage's `{"statusCode","error","message"}`.
    func render(_ error: any Error, context: RequestContext) -> HTTPResponse? {
        switch self {
        case .auth: GoTrueErrorRenderer.response(for: error, context: context)
        case .rest: RestErrorMapping.response(for: error, context: context)
        case .storage: StorageErrorRenderer.response(for: error, context: context)
        case .realtime: nil
        }
    }
}
