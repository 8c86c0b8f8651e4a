/// Whether a route needs an authenticated caller. Declared per route group
/// (`Router.group(auth:_:)`) and carried with the resolved route (`ResolvedRoute`), so the
/// authentication layer reads it from the request's context instead of guessing from the path.
public enum RouteAuthentication: Sendable, Equatable, Comparable {
    /// Anyone may call it (sign-in, avatars, health checks).
    case anonymous
    /// The caller must present valid credentials.
    case required
}
