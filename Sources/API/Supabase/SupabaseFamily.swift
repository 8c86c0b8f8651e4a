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

    /// The style the family's errors are rendered in: its name. `APIErrorRenderer` has a case
    /// for each family with a shape of its own and renders the others in the contract's.
    public var errorStyle: ErrorStyle { ErrorStyle(rawValue) }

    /// The family's error answer (`APIErrorRenderer`, the one place errors become HTTP).
    func render(_ error: any Error, context: RequestContext) -> HTTPResponse {
        APIErrorRenderer.response(for: error, style: errorStyle, context: context)
    }
}
