import HTTP1
import HTTPServer
import RouteKit

/// One of the Supabase-compatible path families `SupabaseGateway` guards.
package enum SupabaseFamily: String, Sendable, CaseIterable {
    case auth, rest, storage, realtime

    /// The family whose prefix (`/auth/v1`, …) `path` is or starts with.
    /// Byte-wise against prefixes built once: the gateway asks this of every request, and
    /// building the four prefix strings each time was 5 % of a `/healthz` (bench/callgrind).
    package init?(path: Substring) {
        let bytes = path.utf8
        for (family, prefix) in Self.prefixes where bytes.starts(with: prefix) {
            let rest = bytes.dropFirst(prefix.count)
            if rest.isEmpty || rest.first == UInt8(ascii: "/") {
                self = family
                return
            }
        }
        return nil
    }

    private static let prefixes: [(SupabaseFamily, [UInt8])] = allCases.map { ($0, Array($0.prefix.utf8)) }

    package var prefix: String { "/\(rawValue)/v1" }

    /// The style the family's errors are rendered in: its name. The family's routes are
    /// registered with it, and its renderer is registered for it (`APIErrorRenderer`).
    package var errorStyle: ErrorStyle { ErrorStyle(rawValue) }

}

extension ErrorStyle {
    /// `/auth/v1`: GoTrue's shape and codes (`GoTrueErrorRenderer`).
    package static let goTrue = SupabaseFamily.auth.errorStyle
    /// `/rest/v1`: PostgREST's codes in `{"code","message","details","hint"}` (`RestErrorMapping`).
    package static let postgREST = SupabaseFamily.rest.errorStyle
    /// `/storage/v1`: Storage's `{"statusCode","error","message"}` (`StorageErrorRenderer`).
    package static let storage = SupabaseFamily.storage.errorStyle
}
