/// Which wire shape a route group answers errors in. The same failure is rendered per style by
/// the application's one `ErrorRendering` (API's `APIErrorRenderer`): `/v1` answers the
/// contract's `{"code","message","details","hint"}`; a Supabase-compatible group
/// (`/auth/v1`: GoTrue's `{"code","error_code","msg"}`, `/rest/v1`: PostgREST's
/// `{"code","message","details","hint"}` with `PGRST…` codes) declares its own style with
/// `Router.group(auth:errorStyle:_:)` and adds a case to the renderer.
public struct ErrorStyle: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    /// docs/contract.md §4: the `/v1` API, the operations routes and anything unmatched.
    public static let contract = ErrorStyle("contract")

    public var description: String { name }
}
