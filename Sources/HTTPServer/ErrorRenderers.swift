import Synchronization

/// The renderers an application registered, by error style: how `RequestContext.renderError`
/// renders the failure of work that answers later (a deferred reply, a streamed body), which
/// no middleware sees. Registered once at start; read only when something failed, so a request
/// carries nothing for it.
public enum ErrorRenderers {
    private static let table = Mutex<[ErrorStyle: any ErrorRendering]>([:])

    /// Renders errors of routes in `style` with `renderer` (a later registration replaces it).
    public static func register(_ renderer: any ErrorRendering, for style: ErrorStyle) {
        table.withLock { $0[style] = renderer }
    }

    public static func renderer(for style: ErrorStyle) -> (any ErrorRendering)? {
        table.withLock { $0[style] }
    }
}
